/** Flattens a decoded message into dotted leaf paths and display values, to compare versions. */

/** Every leaf of `value` as `path → text` (bigints in decimal, arrays by index). */
export function flattenValues(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (value === null || value === undefined) {
    if (prefix !== '') out.set(prefix, '');
    return out;
  }
  if (Array.isArray(value)) {
    if (value.length === 0 && prefix !== '') out.set(prefix, '[]');
    value.forEach((v, i) => flattenValues(v, `${prefix}[${i}]`, out));
    return out;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix !== '') out.set(prefix, '{}');
    for (const [k, v] of entries) {
      if (k === '$unknown' || k === '$absent') continue; // presence marks are not values
      flattenValues(v, prefix === '' ? k : `${prefix}.${k}`, out);
    }
    return out;
  }
  out.set(prefix, String(value));
  return out;
}
