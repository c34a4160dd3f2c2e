/** Small helpers shared by the writers and readers: int64 columns, extra-JSON columns, version lists. */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { parseJsonLossless, stringifyJson, type JsonValue } from '../../api/codec/lossless-json.ts';
import { ByteReader, ByteWriter } from './bytes.ts';
import { CorruptDataError } from '../errors.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Exact values of columns that did not fit int64 (stored NULL), by column name. */
export type BigValues = Record<string, string>;

/** A bigint for an INTEGER column: itself when it fits int64, else null (recorded in `big`). */
export function sqlInt(v: bigint, column: string, big: BigValues): bigint | null {
  if (v >= INT64_MIN && v <= INT64_MAX) return v;
  big[column] = v.toString();
  return null;
}

/** Inverse of sqlInt. */
export function fromSqlInt(v: unknown, column: string, extra: ExtraJson | undefined): bigint {
  if (v !== null && v !== undefined) return BigInt(v as bigint | number);
  const exact = extra?.['#big']?.[column];
  if (typeof exact !== 'string') throw new Error(`column ${column} is NULL and has no exact value`);
  return BigInt(exact);
}

/**
 * The parsed form of an `unknown`/`extra` column: unknown fields by path, plus `#big` values and
 * `#absent`: the plain fields absent on the wire, by path (`''` = the row's own message).
 */
export type ExtraJson = Record<string, Record<string, JsonValue>> & {
  '#big'?: Record<string, string>;
  '#absent'?: Record<string, readonly string[]>;
};

/** Absent field names by path, as `$absent` of the decoded messages holds them. */
export type AbsentByPath = Record<string, readonly string[] | undefined>;

/**
 * JSON text for an extra column from unknown fields by path, big values and absent fields by
 * path; null when there is none of them (the common case: nothing is stored).
 */
export function extraText(
  parts: Record<string, Record<string, JsonValue> | undefined>,
  big?: BigValues,
  absent?: AbsentByPath,
): string | null {
  let out: Record<string, JsonValue> | undefined;
  for (const key in parts) {
    const v = parts[key];
    if (v !== undefined) (out ??= {})[key] = v;
  }
  if (big !== undefined && Object.keys(big).length > 0) (out ??= {})['#big'] = big;
  if (absent !== undefined) {
    let marks: Record<string, string[]> | undefined;
    for (const key in absent) {
      const names = absent[key];
      if (names !== undefined) (marks ??= {})[key] = names as string[];
    }
    if (marks !== undefined) (out ??= {})['#absent'] = marks;
  }
  return out === undefined ? null : stringifyJson(out);
}

/** Puts a message's stored unknown fields and absent names (at `path` of an extra column) back on it. */
export function withExtras<T extends object>(o: T, extra: ExtraJson | undefined, path: string): T {
  if (extra === undefined) return o;
  const u = extra[path];
  if (u !== undefined && !path.startsWith('#')) (o as { $unknown?: Record<string, JsonValue> }).$unknown = u;
  const absent = extra['#absent']?.[path];
  if (absent !== undefined) (o as { $absent?: readonly string[] }).$absent = absent;
  return o;
}

/** The exact value of a column kept under `#big` (it did not fit int64), or undefined. */
export function bigOf(extra: ExtraJson | undefined, column: string): bigint | undefined {
  const exact = extra?.['#big']?.[column];
  return typeof exact === 'string' ? BigInt(exact) : undefined;
}

const INT64_MAX_SQL = 2n ** 63n - 1n;

/**
 * An unsigned 64-bit value for a NOT NULL INTEGER column: itself up to 2^63-1, else 2^63-1 with
 * the exact value recorded in `big` (read it back with bigOf). The clamped value still sorts
 * after every smaller one.
 */
export function sqlUint(v: bigint, column: string, big: BigValues): bigint {
  if (v <= INT64_MAX_SQL) return v;
  big[column] = v.toString();
  return INT64_MAX_SQL;
}

/** Parses an extra column (undefined for NULL). */
export function parseExtra(text: unknown): ExtraJson | undefined {
  return typeof text === 'string' ? (parseJsonLossless(text) as ExtraJson) : undefined;
}

/** Merges `big` values into an existing extra JSON text. */
export function withBig(text: string | undefined, big: BigValues): string | null {
  if (Object.keys(big).length === 0) return text ?? null;
  const parsed = (text === undefined ? {} : parseJsonLossless(text)) as Record<string, JsonValue>;
  parsed['#big'] = big;
  return stringifyJson(parsed);
}

/** Encodes ids in order as deflated zigzag deltas. */
export function encodeIdList(ids: readonly number[]): Buffer {
  const w = new ByteWriter(ids.length * 2 + 16);
  let prev = 0;
  for (const id of ids) {
    w.int(id - prev);
    prev = id;
  }
  return deflateRawSync(w.finish(), { level: 6 });
}

/** Decodes an id list written by encodeIdList. */
export function decodeIdList(blob: Uint8Array, count: number): number[] {
  let bytes: Buffer;
  try {
    // an id delta takes at most 8 bytes (zigzag of a safe integer): more output is damage, not data
    bytes = inflateRawSync(blob, { maxOutputLength: Math.min(count * 8 + 64, 2 ** 31 - 1) });
  } catch (err) {
    throw new CorruptDataError(`the id list of ${count} rows does not inflate (${(err as Error).message})`, {
      table: 'conn_frame',
    });
  }
  const r = new ByteReader(bytes);
  if (!(count >= 0 && count <= bytes.length))
    throw new CorruptDataError(`an id list of ${bytes.length} bytes cannot hold ${count} ids`, { table: 'conn_frame' });
  const out = new Array<number>(count);
  let prev = 0;
  for (let i = 0; i < count; i++) {
    prev += r.int();
    out[i] = prev;
  }
  return out;
}

/** SQLite wants 0/1 for booleans. */
export function bit(b: boolean): number {
  return b ? 1 : 0;
}
