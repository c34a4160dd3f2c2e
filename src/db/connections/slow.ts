/**
 * What the store does with each slow field, by kind, for the fields declared in fields.ts: read
 * it from a row, pack and unpack it, bind it in SQL, and its placeholder value. Loops over
 * SLOW_FIELDS use these instead of naming fields.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { generate } from '../../api/wire/record-literal.ts';
import type { ByteReader, ByteWriter } from '../encoding/bytes.ts';
import { SLOW_FIELDS, type AnySlowValue, type SlowField, type SlowKind, type SlowValues } from './fields.ts';

/** The slow fields as plain descriptors (for loops). */
export const FIELDS: readonly SlowField[] = SLOW_FIELDS;

/** Positions (in FIELDS) of the fields in the packed record's original layout, then of the late ones. */
export const BASE_AT: readonly number[] = FIELDS.flatMap((f, i) => (f.late === true ? [] : [i]));
/** Positions of the late fields (packed after the record's flags). */
export const LATE_AT: readonly number[] = FIELDS.flatMap((f, i) => (f.late === true ? [i] : []));

for (const f of FIELDS) {
  if (f.late === true && !isDictKind(f.kind))
    throw new Error(`slow field ${f.key}: a late field must be held as a dictionary id`);
}

/** The stored form of a slow value: a `str` id, an exact time, an inline string, or 0 for an unset optional string. */
export type StoredSlow = number | bigint | string;

/** True for kinds held as a `str` id. */
export function isDictKind(kind: SlowKind): boolean {
  return kind === 'text' || kind === 'enum' || kind === 'map' || kind === 'optionalText';
}

/** A connection row's field at a path (the row's own field, or a sub-message's). */
function getter(f: SlowField): (c: KafkaConnection) => AnySlowValue {
  const [a, b] = f.path;
  if (b === undefined) {
    return (c) => {
      const row: Readonly<Record<string, unknown>> = c;
      return row[a] as AnySlowValue;
    };
  }
  return (c) => {
    const row: Readonly<Record<string, unknown>> = c;
    return (row[a] as Readonly<Record<string, unknown>>)[b] as AnySlowValue;
  };
}

/** Per field, its value in a row. */
export const GETTERS: readonly ((c: KafkaConnection) => AnySlowValue)[] = FIELDS.map(getter);

/** A row's field at a path as JavaScript source (`v["a"]["b"]`), for generated code; names quoted by JSON.stringify. */
export const pathCode = (f: SlowField, v: string): string =>
  v + f.path.map((name) => `[${JSON.stringify(name)}]`).join('');

/** A row's slow values, in FIELDS order (generated straight-line code where allowed, else a loop over GETTERS). */
export const slowValuesOf: (c: KafkaConnection) => SlowValues =
  generate<(c: KafkaConnection) => SlowValues>(`return [${FIELDS.map((f) => pathCode(f, 'v')).join(', ')}];`) ??
  ((c) => {
    const out = new Array<AnySlowValue>(GETTERS.length);
    for (let i = 0; i < GETTERS.length; i++) out[i] = GETTERS[i]!(c);
    return out;
  });

/** The placeholder value of a kind (a version not written yet). */
function placeholder(kind: SlowKind): AnySlowValue {
  if (kind === 'time') return -1n;
  if (kind === 'map') return {};
  if (kind === 'optionalText') return undefined;
  return '';
}

/** Placeholder slow values. */
export const NO_VALUES: SlowValues = FIELDS.map((f) => placeholder(f.kind));

/** The value a late field has in a version written before it was declared. */
export function lateDefault(kind: SlowKind): AnySlowValue {
  return kind === 'optionalText' ? undefined : placeholder(kind);
}

/** Writes one stored slow value to a packed record. */
export function packSlow(w: ByteWriter, kind: SlowKind, v: StoredSlow): void {
  if (kind === 'time') w.time(v as bigint);
  else if (kind === 'inline') w.string(v as string);
  else w.uint(v as number);
}

/** Reads one stored slow value of a packed record. */
export function unpackSlow(r: ByteReader, kind: SlowKind): StoredSlow {
  if (kind === 'time') return r.time();
  if (kind === 'inline') return r.string();
  return r.uint();
}
