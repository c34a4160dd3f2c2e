/**
 * How the direct decoder reads the values of each field type (see direct-decoder.ts): a slot
 * per type, the in-place readers of the forms the server writes, and the lossless parse plus the
 * compiled decoder of the type for every other form.
 */
import { isInt32Key, valueDecoderOf, type ValueDecoder } from './compiled-decoder.ts';
import { recordReaderOf, type RecordReader } from './direct-record.ts';
import {
  bail,
  DIRECT_MAX_DEPTH,
  expectByte,
  genericValue,
  hashBytes,
  JsonBytes,
  nextItem,
  readPlainInt,
  readIndexKey,
  readQuotedInt,
  scanString,
  skipWs,
} from './json-bytes.ts';
import type { FieldType, MessageSchema } from '../schema/fields.ts';
import { IndexMapBuilders } from './index-map.ts';
import { MAX_CACHED_TEXT, TextCache } from './text-cache.ts';

const QUOTE = 0x22;
const K_STRING = 0;
const K_BOOL = 1;
const K_INT32 = 2;
const K_UINT32 = 3;
const K_INT64 = 4;
const K_UINT64 = 5;
/** duration, timestamp, enum: a string decoded by the reference decoder, cached by text */
const K_TEXT = 6;
const K_MESSAGE = 7;
const K_LIST = 8;
const K_MAP = 9;

/** How the values of one field type are read. */
export interface Slot {
  readonly kind: number;
  readonly type: FieldType;
  /** the compiled decoder of the type, for every form off the fast paths */
  readonly reference: ValueDecoder;
  /** decoded values of texts (K_STRING, K_TEXT) */
  readonly cache: TextCache<unknown> | undefined;
  /** list element or map value slot, resolved on first use (types may refer to each other) */
  inner: Slot | undefined;
  /** message reader, resolved on first use */
  record: RecordReader | undefined;
  /** literal builders of an int32-keyed map */
  readonly maps: IndexMapBuilders | undefined;
  /** scratch arrays for the entries of int32-keyed maps being read */
  readonly scratch: { keys: number[]; values: unknown[] }[];
}

/** Map keys and unknown keys. */
const KEYS = new TextCache<unknown>(10);
/** Small int64 values as bigints (zero counters are everywhere). */
const SMALL_BIGINTS = Array.from({ length: 1024 }, (_, i) => BigInt(i));

const slots = new WeakMap<FieldType, Slot>();

/** The slot of a field type (built once, cached). */
export function slotOf(type: FieldType): Slot {
  let slot = slots.get(type);
  if (slot === undefined) {
    const maps = type.kind === 'map' && type.keyKind === 'int32' ? new IndexMapBuilders() : undefined;
    const reference = valueDecoderOf(type);
    slot = {
      kind: kindOf(type),
      type,
      reference,
      cache: cacheOf(type),
      inner: undefined,
      record: undefined,
      maps,
      scratch: [],
    };
    slots.set(type, slot);
  }
  return slot;
}

function kindOf(type: FieldType): number {
  switch (type.kind) {
    case 'string':
      return K_STRING;
    case 'bool':
      return K_BOOL;
    case 'int32':
      return K_INT32;
    case 'uint32':
      return K_UINT32;
    case 'int64':
      return K_INT64;
    case 'uint64':
      return K_UINT64;
    case 'duration':
    case 'timestamp':
    case 'enum':
      return K_TEXT;
    case 'message':
      return K_MESSAGE;
    case 'list':
      return K_LIST;
    case 'map':
      return K_MAP;
  }
}

/** Each field has its own small cache: few distinct texts stay in the CPU's caches, many just miss. */
function cacheOf(type: FieldType): TextCache<unknown> | undefined {
  switch (type.kind) {
    case 'string':
    case 'timestamp':
    case 'duration':
    case 'enum':
      return new TextCache<unknown>(8);
    default:
      return undefined;
  }
}

function innerType(type: FieldType): FieldType {
  if (type.kind === 'list') return type.element;
  if (type.kind === 'map') return type.value;
  throw new Error(`type ${type.kind} has no inner type`);
}

/** Reads the value at the position (after whitespace). */
export function readValue(c: JsonBytes, s: Slot): unknown {
  switch (s.kind) {
    case K_STRING:
      return readString(c, s);
    case K_BOOL:
      return readBool(c, s);
    case K_INT32:
    case K_UINT32:
      return readInt32(c, s);
    case K_INT64:
    case K_UINT64:
      return readInt64(c, s);
    case K_TEXT:
      return readText(c, s);
    case K_MESSAGE:
      if (c.b[c.p] !== 0x7b) return s.reference(genericValue(c));
      return (s.record ??= recordReaderOf((s.type as { message: MessageSchema }).message))(c);
    case K_LIST:
      return readList(c, s);
    case K_MAP:
      return readMap(c, s);
    default:
      return s.reference(genericValue(c));
  }
}

/** The string of bytes [start, end) (no escapes), from the cache when it was seen there before. */
function stringAt(c: JsonBytes, start: number, end: number, cache: TextCache<unknown>): string {
  if (start === end) return '';
  if (!c.ascii || end - start > MAX_CACHED_TEXT || !cache.active()) return c.text(start, end, c.ascii);
  const h = hashBytes(c, start, end);
  const hit = cache.get(c.b, start, end, h);
  if (hit !== undefined) return hit as string;
  const text = c.text(start, end, true);
  cache.set(h, text, text);
  return text;
}

/** Reads the key at the position (a map key or an unknown field's key). */
export function readKey(c: JsonBytes): string {
  const start = c.p + 1;
  const end = scanString(c);
  if (end < 0) return genericValue(c) as string;
  c.p = end + 1;
  return stringAt(c, start, end, KEYS);
}

function readString(c: JsonBytes, s: Slot): unknown {
  if (c.b[c.p] !== QUOTE) return s.reference(genericValue(c));
  const start = c.p + 1;
  const end = scanString(c);
  if (end < 0) return s.reference(genericValue(c));
  c.p = end + 1;
  return stringAt(c, start, end, s.cache!);
}

function readText(c: JsonBytes, s: Slot): unknown {
  if (c.b[c.p] !== QUOTE) return s.reference(genericValue(c));
  const start = c.p + 1;
  const end = scanString(c);
  if (end < 0) return s.reference(genericValue(c));
  c.p = end + 1;
  const cache = s.cache!;
  if (!c.ascii || end - start > MAX_CACHED_TEXT || !cache.active()) return s.reference(c.text(start, end, c.ascii));
  const h = hashBytes(c, start, end);
  const hit = cache.get(c.b, start, end, h);
  if (hit !== undefined) return hit;
  const text = c.text(start, end, true);
  const value = s.reference(text);
  cache.set(h, text, value);
  return value;
}

function readBool(c: JsonBytes, s: Slot): unknown {
  const b = c.b;
  const p = c.p;
  if (b[p] === 0x74 && b[p + 1] === 0x72 && b[p + 2] === 0x75 && b[p + 3] === 0x65) {
    c.p = p + 4;
    return true;
  }
  if (b[p] === 0x66 && b[p + 1] === 0x61 && b[p + 2] === 0x6c && b[p + 3] === 0x73 && b[p + 4] === 0x65) {
    c.p = p + 5;
    return false;
  }
  return s.reference(genericValue(c));
}

function readInt32(c: JsonBytes, s: Slot): unknown {
  const start = c.p;
  const v = readPlainInt(c, 10);
  if (s.kind === K_INT32 ? v >= -2147483648 && v <= 2147483647 : v >= 0 && v <= 4294967295) return v;
  c.p = start;
  return s.reference(genericValue(c));
}

function readInt64(c: JsonBytes, s: Slot): unknown {
  if (c.b[c.p] === QUOTE) {
    const v = readQuotedInt(c, s.kind === K_INT64);
    if (v >= 0 && v < 1024) return SMALL_BIGINTS[v];
    if (v === v) return BigInt(v);
  }
  return s.reference(genericValue(c));
}

function readList(c: JsonBytes, s: Slot): unknown {
  if (c.b[c.p] !== 0x5b) return s.reference(genericValue(c));
  const inner = (s.inner ??= slotOf(innerType(s.type)));
  if (++c.depth > DIRECT_MAX_DEPTH) bail();
  c.p++;
  if (c.b[c.p]! <= 0x20) skipWs(c);
  const out: unknown[] = [];
  if (c.b[c.p] === 0x5d) {
    c.p++;
  } else {
    for (;;) {
      out.push(readValue(c, inner));
      if (!nextItem(c, 0x5d)) break;
    }
  }
  c.depth--;
  return out;
}

function readMap(c: JsonBytes, s: Slot): unknown {
  if (c.b[c.p] !== 0x7b) return s.reference(genericValue(c));
  const inner = (s.inner ??= slotOf(innerType(s.type)));
  if (++c.depth > DIRECT_MAX_DEPTH) bail();
  c.p++;
  if (c.b[c.p]! <= 0x20) skipWs(c);
  let out: Record<string, unknown>;
  if (c.b[c.p] === 0x7d) {
    c.p++;
    out = {};
  } else {
    out = s.maps === undefined ? readEntries(c, s, inner, {}) : readIndexMap(c, s, inner, s.maps);
  }
  c.depth--;
  return out;
}

/** Reads the entries of a map into `out`, from a key on, and moves past its '}'. */
function readEntries(c: JsonBytes, s: Slot, inner: Slot, out: Record<string, unknown>): Record<string, unknown> {
  const intKeys = s.maps !== undefined;
  for (;;) {
    if (c.b[c.p] !== QUOTE) bail();
    const index = intKeys ? readIndexKey(c) : -1;
    const key = index >= 0 ? index : readKey(c);
    if (index < 0 && (intKeys ? !isInt32Key(key as string) : key === '__proto__')) bail();
    expectByte(c, 0x3a);
    if (c.b[c.p]! <= 0x20) skipWs(c);
    out[key] = readValue(c, inner);
    if (nextItem(c, 0x7d)) continue;
    return out;
  }
}

/**
 * Reads an int32-keyed map, from its first key on: while every key is an array index, the
 * entries are collected and the map is built by the literal of its key set; from another key on,
 * entry by entry.
 */
function readIndexMap(c: JsonBytes, s: Slot, inner: Slot, maps: IndexMapBuilders): Record<string, unknown> {
  const scratch = s.scratch.pop() ?? { keys: [], values: [] };
  const { keys, values } = scratch;
  let n = 0;
  let out: Record<string, unknown> | undefined;
  for (;;) {
    if (c.b[c.p] !== QUOTE) bail();
    const index = readIndexKey(c);
    if (index < 0) {
      out = readEntries(c, s, inner, entriesOf(keys, values, n));
      break;
    }
    expectByte(c, 0x3a);
    if (c.b[c.p]! <= 0x20) skipWs(c);
    keys[n] = index;
    values[n] = readValue(c, inner);
    n++;
    if (!nextItem(c, 0x7d)) {
      out = maps.build(keys, values, n) ?? entriesOf(keys, values, n);
      break;
    }
  }
  values.fill(undefined, 0, n); // holds nothing of the answer once it is built
  s.scratch.push(scratch);
  return out;
}

function entriesOf(keys: readonly number[], values: readonly unknown[], n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[keys[i]!] = values[i];
  return out;
}
