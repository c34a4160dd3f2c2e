/**
 * The direct decoder: decodes a message straight from the UTF-8 bytes of its JSON text into the
 * typed records the compiled decoder returns, without building a JSON tree first. Readers are
 * compiled once per message schema and field type. The forms the server writes (expected keys
 * in schema order, plain strings, short int64 strings, plain integers) are read in place, with
 * repeated texts taken from caches; any other form of a value (escapes, bare int64 numbers,
 * numeric enums, unknown fields, ...) is parsed by the lossless parser and decoded by the
 * compiled (reference) decoder of its type. Anything surprising (malformed JSON, an invalid
 * value, a field given twice, deep nesting) abandons the attempt, and the whole body is decoded
 * by the reference path instead, so values and errors are always exactly the reference's.
 */
import { parseJsonLossless, type JsonValue } from '../codec/lossless-json.ts';
import { camelToSnake, type FieldType, type MessageSchema } from '../schema/fields.ts';
import { compileDefaults, isInt32Key, recordDecoderOf, valueDecoderOf, type ValueDecoder } from './compiled-decoder.ts';
import {
  bail,
  byteMatch,
  DIRECT_MAX_DEPTH,
  expectByte,
  genericValue,
  hashBytes,
  JsonBytes,
  matchBytes,
  matchNull,
  readPlainInt,
  readIndexKey,
  readQuotedInt,
  scanString,
  skipWs,
  type ByteMatch,
} from './json-bytes.ts';
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
/** decoded by the reference decoder from the lossless parse (messages with more than 31 fields) */
const K_REFERENCE = 10;

type RecordReader = (c: JsonBytes) => Record<string, unknown>;

/** How the values of one field type are read. */
interface Slot {
  readonly kind: number;
  readonly type: FieldType;
  /** the compiled decoder of the type, for every form off the fast paths */
  readonly reference: ValueDecoder;
  /** decoded values of texts (K_TEXT) */
  readonly cache: TextCache<unknown> | undefined;
  /** list element or map value slot, resolved on first use (types may refer to each other) */
  inner: Slot | undefined;
  /** message reader, resolved on first use */
  record: RecordReader | undefined;
}

interface DirectField {
  readonly name: string;
  readonly index: number;
  readonly bit: number;
  /** the key as the server writes it, quotes included */
  readonly key: ByteMatch;
  readonly slot: Slot;
  readonly oneof: string | undefined;
  /** true when the key is the field's own name in the lookup (the in-order guess is exact) */
  guessable: boolean;
}

/** Map keys and unknown keys. */
const KEYS = new TextCache<unknown>(10);
/** Small int64 values as bigints (zero counters are everywhere). */
const SMALL_BIGINTS = Array.from({ length: 1024 }, (_, i) => BigInt(i));

const slots = new WeakMap<FieldType, Slot>();
const readers = new WeakMap<MessageSchema, RecordReader>();
const ascii = new TextEncoder();

/**
 * Decodes a message from the UTF-8 bytes of its JSON text: exactly what the compiled decoder
 * returns for the lossless parse of the bytes (and the same errors), usually several times faster.
 */
export function decodeMessageBytes(schema: MessageSchema, bytes: Uint8Array): Record<string, unknown> {
  return tryDecodeDirect(schema, bytes) ?? recordDecoderOf(schema)(parseJsonLossless(bytes));
}

/** The direct decoding of a message, or undefined when the reference path must decide. */
export function tryDecodeDirect(schema: MessageSchema, bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const c = new JsonBytes(bytes);
    const b = c.b;
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) c.p = 3; // the UTF-8 decoder drops a BOM
    skipWs(c);
    if (b[c.p] !== 0x7b) return undefined;
    const out = recordReaderOf(schema)(c);
    skipWs(c);
    return c.p === c.n ? out : undefined;
  } catch {
    return undefined;
  }
}

function recordReaderOf(schema: MessageSchema): RecordReader {
  let reader = readers.get(schema);
  if (reader === undefined) {
    reader = compileRecord(schema);
    readers.set(schema, reader);
  }
  return reader;
}

function slotOf(type: FieldType): Slot {
  let slot = slots.get(type);
  if (slot === undefined) {
    slot = { kind: kindOf(type), type, reference: valueDecoderOf(type), cache: cacheOf(type), inner: undefined, record: undefined };
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
      return Object.keys(type.message.fields).length > 31 ? K_REFERENCE : K_MESSAGE;
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

function compileRecord(schema: MessageSchema): RecordReader {
  const fields: DirectField[] = Object.entries(schema.fields).map(([name, spec], index) => ({
    name,
    index,
    bit: 1 << index,
    key: byteMatch(ascii.encode(JSON.stringify(name))),
    slot: slotOf(spec.type),
    oneof: spec.oneof,
    guessable: false,
  }));
  // same insertion order as the compiled decoder: a later name wins a clash
  const lookup = new Map<string, DirectField>();
  for (const field of fields) {
    lookup.set(field.name, field);
    lookup.set(camelToSnake(field.name), field);
  }
  for (const field of fields) field.guessable = lookup.get(field.name) === field;
  const count = fields.length;
  const defaults = compileDefaults(schema);
  const defaultBits = defaults.map((d) => lookup.get(d.name)!.bit);
  const defaultCount = defaults.length;
  // plain objects of one constructor per schema, as the compiled decoder makes them
  const Shape = function (this: object) {} as unknown as new () => object;
  Shape.prototype = Object.prototype;

  return (c) => {
    if (++c.depth > DIRECT_MAX_DEPTH) bail();
    c.p++; // '{'
    const out = new Shape() as Record<string, unknown>;
    let unknown: Record<string, JsonValue> | undefined;
    let groups: Map<string, string> | undefined;
    let seen = 0;
    let set = 0;
    let next = 0;
    if (c.b[c.p]! <= 0x20) skipWs(c);
    if (c.b[c.p] === 0x7d) {
      c.p++;
    } else {
      for (;;) {
        if (c.b[c.p] !== QUOTE) bail();
        let field: DirectField | undefined;
        let key = '';
        const guess = next < count ? fields[next]! : undefined;
        if (guess !== undefined && guess.guessable && matchBytes(c, guess.key)) {
          field = guess;
        } else {
          key = readKey(c);
          field = lookup.get(key);
        }
        expectByte(c, 0x3a);
        if (c.b[c.p]! <= 0x20) skipWs(c);
        if (field === undefined) {
          if (key === '__proto__') bail();
          (unknown ??= {})[key] = genericValue(c);
        } else {
          if ((seen & field.bit) !== 0) bail(); // given twice (perhaps as camelCase and snake_case)
          seen |= field.bit;
          next = field.index + 1;
          if (!matchNull(c)) {
            const group = field.oneof;
            if (group !== undefined) {
              groups ??= new Map();
              const other = groups.get(group);
              if (other !== undefined && other !== field.name) bail();
              groups.set(group, field.name);
            }
            out[field.name] = readValue(c, field.slot);
            set |= field.bit;
          }
        }
        if (c.b[c.p]! <= 0x20) skipWs(c);
        const x = c.b[c.p];
        if (x === 0x2c) {
          c.p++;
          if (c.b[c.p]! <= 0x20) skipWs(c);
          continue;
        }
        if (x === 0x7d) {
          c.p++;
          break;
        }
        bail();
      }
    }
    c.depth--;
    for (let i = 0; i < defaultCount; i++) {
      if ((set & defaultBits[i]!) !== 0) continue;
      const d = defaults[i]!;
      out[d.name] = d.fresh === undefined ? d.value : d.fresh();
    }
    if (unknown !== undefined) out.$unknown = unknown;
    return out;
  };
}

/** Reads the value at the position (after whitespace). */
function readValue(c: JsonBytes, s: Slot): unknown {
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
  const h = hashBytes(c.b, start, end);
  const hit = cache.get(c.b, start, end, h);
  if (hit !== undefined) return hit as string;
  const text = c.text(start, end, true);
  cache.set(h, text, text);
  return text;
}

function readKey(c: JsonBytes): string {
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
  const h = hashBytes(c.b, start, end);
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
      if (c.b[c.p]! <= 0x20) skipWs(c);
      const x = c.b[c.p];
      if (x === 0x2c) {
        c.p++;
        if (c.b[c.p]! <= 0x20) skipWs(c);
        continue;
      }
      if (x === 0x5d) {
        c.p++;
        break;
      }
      bail();
    }
  }
  c.depth--;
  return out;
}

function readMap(c: JsonBytes, s: Slot): unknown {
  if (c.b[c.p] !== 0x7b) return s.reference(genericValue(c));
  const inner = (s.inner ??= slotOf(innerType(s.type)));
  const intKeys = s.type.kind === 'map' && s.type.keyKind === 'int32';
  if (++c.depth > DIRECT_MAX_DEPTH) bail();
  c.p++;
  if (c.b[c.p]! <= 0x20) skipWs(c);
  const out: Record<string, unknown> = {};
  if (c.b[c.p] === 0x7d) {
    c.p++;
  } else {
    for (;;) {
      if (c.b[c.p] !== QUOTE) bail();
      const index = intKeys ? readIndexKey(c) : -1;
      const key = index >= 0 ? index : readKey(c);
      if (index < 0 && (intKeys ? !isInt32Key(key as string) : key === '__proto__')) bail();
      expectByte(c, 0x3a);
      if (c.b[c.p]! <= 0x20) skipWs(c);
      out[key] = readValue(c, inner);
      if (c.b[c.p]! <= 0x20) skipWs(c);
      const x = c.b[c.p];
      if (x === 0x2c) {
        c.p++;
        if (c.b[c.p]! <= 0x20) skipWs(c);
        continue;
      }
      if (x === 0x7d) {
        c.p++;
        break;
      }
      bail();
    }
  }
  c.depth--;
  return out;
}
