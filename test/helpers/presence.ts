/** Presence helpers for tests: compare decoded values without their `$absent` marks. */

/** A deep copy of a decoded value without any `$absent` (what evaluation sees: defaults only). */
export function withoutPresence<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => withoutPresence(v)) as T;
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== '$absent') out[k] = k === '$unknown' ? v : withoutPresence(v);
  return out as T;
}
