/** Builds fully populated (every field non-default) decoded values from a schema, for round-trip tests. */
import type { FieldType, MessageSchema } from '../../src/api/schema/fields.ts';

/** A deterministic pseudo-random generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HUGE = [9223372036854775807n, 9007199254740993n, 123n, 1n];

/** A non-default value of a field type. */
export function sampleOf(type: FieldType, next: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  switch (type.kind) {
    case 'string':
      return pick(['orders-service', 'é ünïcode ✓', 'a"quote\\back', 'x']);
    case 'bool':
      return true;
    case 'int32':
      return pick([1, 7, 2147483647, 42]);
    case 'uint32':
      return pick([1, 4294967295]);
    case 'int64':
      return pick([...HUGE, -5n]);
    case 'uint64':
      return pick([...HUGE, 18446744073709551615n]);
    case 'duration':
      return pick([1_500_000_000n, 1000n, 30_000_000_000n, 1n]);
    case 'timestamp':
      return pick([1_756_722_174_123_456_789n, 1_700_000_000_000_000_000n]);
    case 'enum':
      return type.table.values[1 + Math.floor(next() * (type.table.values.length - 1))];
    case 'list':
      return depth > 6 ? [] : [sampleOf(type.element, next, depth + 1), sampleOf(type.element, next, depth + 1)];
    case 'map':
      return { '0': sampleOf(type.value, next, depth + 1), '18': sampleOf(type.value, next, depth + 1) };
    case 'message':
      return sampleMessage(type.message, next, depth + 1);
  }
}

/** A message with every always-present field set to a non-default value and the first one-of member chosen. */
export function sampleMessage(schema: MessageSchema, next: () => number, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const chosen = new Set<string>();
  for (const [name, spec] of Object.entries(schema.fields)) {
    if (spec.oneof !== undefined) {
      if (chosen.has(spec.oneof)) continue;
      chosen.add(spec.oneof);
    }
    out[name] = sampleOf(spec.type, next, depth);
  }
  return out;
}
