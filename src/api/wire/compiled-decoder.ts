/**
 * Specialised decoders compiled once per message schema (and per field type): key→field tables
 * for camelCase and snake_case names, one decode closure per field chosen by its kind, the list
 * of always-present fields for defaults, and fast paths for the common wire forms (short int64
 * decimal strings, server-style timestamps, simple durations). Anything off the fast paths goes
 * through the shared codecs, so values and error messages are exactly those of the plain
 * schema walk. A try/catch is entered once per message / list / map, and the JSON path of an
 * error is rebuilt only when one is thrown.
 */
import { CodecError } from '../codec/errors.ts';
import { decodeWireInt32, decodeWireInt64, describeValue, integerOfLiteral } from '../codec/int64.ts';
import { parseWireDuration } from '../codec/duration.ts';
import { daysFromCivil, parseTimestamp } from '../codec/timestamp.ts';
import { JsonNumber, type JsonValue } from '../codec/lossless-json.ts';
import { camelToSnake, type FieldSpec, type FieldType, type MessageSchema } from '../schema/fields.ts';
import { canonicalEnumName, type EnumTable } from '../schema/enum-table.ts';
import { absentMessage, defaultValue } from './defaults.ts';
import { plainShape } from './plain-shape.ts';
import { recordLiteral } from './record-literal.ts';
import { ValidationError } from './validation-error.ts';

/** Decodes one value; throws ValidationError (or CodecError) relative to the value. */
export type ValueDecoder = (raw: unknown) => unknown;

/** A compiled message decoder. */
export type RecordDecoder = (value: unknown) => Record<string, unknown>;

interface CompiledField {
  readonly name: string;
  readonly oneof: string | undefined;
  /** the decoder, compiled lazily (schemas may refer to each other) */
  decode: ValueDecoder;
  /** the schema-order index of the field, for the in-order key guess */
  readonly index: number;
  /** true when `lookup.get(name)` is this very entry (the in-order guess is then exact) */
  guessable: boolean;
}

/** An always-present field, with what it reads as when the input leaves it out. */
export interface DefaultField {
  readonly name: string;
  /** constant default of a scalar or enum field, when `fresh` is undefined */
  readonly value: unknown;
  /** builder of a fresh mutable default (list, map, message) */
  readonly fresh: (() => unknown) | undefined;
}

/** Wraps an error of a nested value with one more path segment (as the plain decoder does). */
export function rethrow(err: unknown, segment: string): unknown {
  if (err instanceof ValidationError) return err.within(segment);
  if (err instanceof CodecError) return new ValidationError('', err.message).within(segment);
  return err;
}

const recordDecoders = new WeakMap<MessageSchema, RecordDecoder>();
const typeDecoders = new WeakMap<FieldType, ValueDecoder>();

/** The compiled decoder of a message schema (built once, cached). */
export function recordDecoderOf(schema: MessageSchema): RecordDecoder {
  let dec = recordDecoders.get(schema);
  if (dec === undefined) {
    dec = compileRecord(schema);
    recordDecoders.set(schema, dec);
  }
  return dec;
}

/** The compiled decoder of a field type (built once, cached). */
export function valueDecoderOf(type: FieldType): ValueDecoder {
  let dec = typeDecoders.get(type);
  if (dec === undefined) {
    dec = compileType(type);
    typeDecoders.set(type, dec);
  }
  return dec;
}

function compileRecord(schema: MessageSchema): RecordDecoder {
  const schemaName = schema.name;
  const specs = Object.entries(schema.fields);
  const ordered: CompiledField[] = [];
  const lookup = new Map<string, CompiledField>();
  specs.forEach(([name, spec]: [string, FieldSpec], index) => {
    let compiled: ValueDecoder | undefined;
    const entry: CompiledField = {
      name,
      oneof: spec.oneof,
      index,
      guessable: false,
      // first call compiles and replaces itself
      decode: (raw) => {
        compiled ??= valueDecoderOf(spec.type);
        entry.decode = compiled;
        return compiled(raw);
      },
    };
    ordered.push(entry);
    // same insertion order as the plain decoder: a later name wins a clash
    lookup.set(name, entry);
    lookup.set(camelToSnake(name), entry);
  });
  for (const entry of ordered) entry.guessable = lookup.get(entry.name) === entry;
  const count = ordered.length;

  const defaults = compileDefaults(schema);
  const defaultCount = defaults.length;
  // A record whose fields all come in schema order, none null, is built in one step by a literal
  // (record-literal.ts); any other field by field, as a plain object (prototype Object.prototype,
  // no own properties) allocated by a constructor of this schema, so V8 sizes its in-object
  // fields for the message (slack tracking) instead of growing a property array field by field.
  const build = recordLiteral(ordered.map((entry) => entry.name));
  const Shape = plainShape();
  /** scratch arrays for the values of records read in schema order (nested reads take their own) */
  const scratch: unknown[][] = [];
  /** The record of the first `n` fields, read in schema order, built field by field. */
  const partial = (values: unknown[], n: number): Record<string, unknown> => {
    const out = new Shape();
    for (let i = 0; i < n; i++) out[ordered[i]!.name] = values[i];
    return out;
  };

  return (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof JsonNumber) {
      throw new ValidationError('', `expected object ${schemaName}, got ${describeValue(value)}`);
    }
    const src = value as Record<string, unknown>;
    const values = scratch.pop() ?? new Array<unknown>(count);
    // undefined while every field so far came in schema order: their values wait in `values`
    let out: Record<string, unknown> | undefined;
    let inOrder = 0;
    let unknown: Record<string, JsonValue> | undefined;
    let oneofSeen: Map<string, string> | undefined;
    let next = 0;
    let key = '';
    // false while a one-of conflict (already carrying its path) is thrown
    let wrap = true;
    try {
      for (key in src) {
        const raw = src[key];
        let entry: CompiledField | undefined;
        if (next < count) {
          const guess = ordered[next]!;
          entry = guess.name === key && guess.guessable ? guess : lookup.get(key);
        } else {
          entry = lookup.get(key);
        }
        if (entry === undefined) {
          (unknown ??= {})[key] = raw as JsonValue;
          continue;
        }
        next = entry.index + 1;
        if (raw === null || raw === undefined) {
          out ??= partial(values, inOrder); // null reads as the default / unset
          continue;
        }
        const name = entry.name;
        const group = entry.oneof;
        if (group !== undefined) {
          oneofSeen ??= new Map();
          const other = oneofSeen.get(group);
          if (other !== undefined && other !== name) {
            wrap = false;
            throw new ValidationError(key, `only one of ${other} and ${name} (one-of "${group}") may be set`);
          }
          oneofSeen.set(group, name);
        }
        const decoded = entry.decode(raw);
        if (out === undefined && entry.index === inOrder) values[inOrder++] = decoded;
        else (out ??= partial(values, inOrder))[name] = decoded;
      }
    } catch (err) {
      throw wrap ? rethrow(err, `.${key}`) : err;
    }
    if (out === undefined) out = inOrder === count && build !== undefined ? build(values) : partial(values, inOrder);
    values.fill(undefined, 0, inOrder); // holds nothing of the answer once it is built
    scratch.push(values);
    let absent: string[] | undefined;
    for (let i = 0; i < defaultCount; i++) {
      const d = defaults[i]!;
      if (d.name in out) continue;
      out[d.name] = d.fresh === undefined ? d.value : d.fresh();
      (absent ??= []).push(d.name);
    }
    if (unknown !== undefined) out.$unknown = unknown;
    if (absent !== undefined) out.$absent = absent;
    return out;
  };
}

/** The always-present fields of a message, in schema order, with their defaults. */
export function compileDefaults(schema: MessageSchema): DefaultField[] {
  const defaults: DefaultField[] = [];
  for (const name in schema.fields) {
    const spec = schema.fields[name]!;
    if (spec.presence !== 'always') continue;
    const type = spec.type;
    const mutable = type.kind === 'list' || type.kind === 'map' || type.kind === 'message';
    // an absent message reads as its default with every field named absent (nothing of it was sent)
    const fresh = type.kind === 'message' ? () => absentMessage(type.message) : () => defaultValue(type);
    defaults.push({ name, value: mutable ? undefined : defaultValue(type), fresh: mutable ? fresh : undefined });
  }
  return defaults;
}

function compileType(type: FieldType): ValueDecoder {
  switch (type.kind) {
    case 'string':
      return (raw) => {
        if (typeof raw !== 'string') throw new ValidationError('', `expected string, got ${describeValue(raw)}`);
        return raw;
      };
    case 'bool':
      return (raw) => {
        if (typeof raw !== 'boolean') throw new ValidationError('', `expected boolean, got ${describeValue(raw)}`);
        return raw;
      };
    case 'int32':
      return (raw) =>
        // `+ 0` turns -0 into 0, as the BigInt round trip of decodeWireInt32 does
        typeof raw === 'number' && raw >= -2147483648 && raw <= 2147483647 && Number.isInteger(raw)
          ? raw + 0
          : decodeWireInt32(raw, 'int32');
    case 'uint32':
      return (raw) =>
        typeof raw === 'number' && raw >= 0 && raw <= 4294967295 && Number.isInteger(raw)
          ? raw + 0
          : decodeWireInt32(raw, 'uint32');
    case 'int64':
      return (raw) =>
        typeof raw === 'string' && isShortDecimal(raw, true) ? BigInt(raw) : decodeWireInt64(raw, 'int64');
    case 'uint64':
      return (raw) =>
        typeof raw === 'string' && isShortDecimal(raw, false) ? BigInt(raw) : decodeWireInt64(raw, 'uint64');
    case 'duration':
      return (raw) => {
        if (typeof raw !== 'string')
          throw new ValidationError('', `expected duration string, got ${describeValue(raw)}`);
        const fast = fastDuration(raw);
        return fast !== undefined ? fast : parseWireDuration(raw);
      };
    case 'timestamp': {
      // the last text seen and its value: most answers repeat the epoch (unset closeTime)
      let lastText = '';
      let lastValue = 0n;
      return (raw) => {
        if (typeof raw !== 'string')
          throw new ValidationError('', `expected timestamp string, got ${describeValue(raw)}`);
        if (raw === lastText) return lastValue;
        const fast = fastTimestamp(raw);
        const v = fast !== undefined ? fast : parseTimestamp(raw);
        lastText = raw;
        lastValue = v;
        return v;
      };
    }
    case 'enum':
      return compileEnum(type.table);
    case 'message': {
      const schema = type.message;
      let dec: RecordDecoder | undefined;
      return (raw) => (dec ??= recordDecoderOf(schema))(raw);
    }
    case 'list': {
      const elementType = type.element;
      let element: ValueDecoder | undefined;
      return (raw) => {
        if (!Array.isArray(raw)) throw new ValidationError('', `expected array, got ${describeValue(raw)}`);
        const el = (element ??= valueDecoderOf(elementType));
        const n = raw.length;
        const out = new Array<unknown>(n);
        let i = 0;
        try {
          for (; i < n; i++) out[i] = el(raw[i]);
        } catch (err) {
          throw rethrow(err, `[${i}]`);
        }
        return out;
      };
    }
    case 'map': {
      const valueType = type.value;
      const intKeys = type.keyKind === 'int32';
      let val: ValueDecoder | undefined;
      return (raw) => {
        if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || raw instanceof JsonNumber) {
          throw new ValidationError('', `expected object (map), got ${describeValue(raw)}`);
        }
        const dec = (val ??= valueDecoderOf(valueType));
        const src = raw as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        let key = '';
        let wrap = true;
        try {
          for (key in src) {
            if (intKeys && !isInt32Key(key)) {
              wrap = false;
              throw new ValidationError(`["${key}"]`, 'map key must be a decimal integer');
            }
            out[key] = dec(src[key]);
          }
        } catch (err) {
          throw wrap ? rethrow(err, `["${key}"]`) : err;
        }
        return out;
      };
    }
  }
}

function compileEnum(table: EnumTable): ValueDecoder {
  // every known name and alias, resolved once by canonicalEnumName itself
  const names = new Map<string, string>();
  for (const candidate of [...table.values, ...Object.keys(table.aliases)]) {
    const canonical = canonicalEnumName(table, candidate);
    if (canonical !== undefined) names.set(candidate, canonical);
  }
  const values = table.values;
  const typeName = table.typeName;
  return (raw) => {
    if (typeof raw === 'string') {
      const known = names.get(raw);
      return known !== undefined ? known : (canonicalEnumName(table, raw) ?? raw);
    }
    if (typeof raw === 'number' && Number.isInteger(raw)) return values[raw] ?? String(raw);
    const n = raw instanceof JsonNumber ? integerOfLiteral(raw.text) : undefined;
    if (n !== undefined) return (n >= 0n && n < BigInt(values.length) ? values[Number(n)] : undefined) ?? String(n);
    throw new ValidationError('', `expected ${typeName} name, got ${describeValue(raw)}`);
  };
}

/** `/^-?[0-9]+$/` with at most 15 digits (so within every 64-bit range); '-' only when signed. */
function isShortDecimal(s: string, signed: boolean): boolean {
  const len = s.length;
  let i = 0;
  if (signed && len > 1 && s.charCodeAt(0) === 45 /* - */) i = 1;
  if (len === i || len - i > 15) return false;
  for (; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** True for a map key of an int32-keyed map: `/^-?\d{1,10}$/`. */
export function isInt32Key(s: string): boolean {
  const len = s.length;
  let i = 0;
  if (len > 1 && s.charCodeAt(0) === 45 /* - */) i = 1;
  if (len === i || len - i > 10) return false;
  for (; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/**
 * `"<sec>s"` or `"<sec>.<frac>s"` with 1..6 second digits and 1..9 fraction digits, not
 * negative (the nanoseconds then stay below 2^53); undefined for anything else.
 */
function fastDuration(s: string): bigint | undefined {
  const len = s.length;
  if (len < 2 || s.charCodeAt(len - 1) !== 115 /* s */) return undefined;
  let i = 0;
  let sec = 0;
  for (; i < len - 1; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    sec = sec * 10 + (c - 48);
  }
  if (i === 0 || i > 6) return undefined;
  if (i === len - 1) return BigInt(sec * 1e9);
  if (s.charCodeAt(i) !== 46 /* . */) return undefined;
  const fracStart = ++i;
  const fracEnd = len - 1;
  const digits = fracEnd - fracStart;
  if (digits < 1 || digits > 9) return undefined;
  let frac = 0;
  for (; i < fracEnd; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
    frac = frac * 10 + (c - 48);
  }
  for (let d = digits; d < 9; d++) frac *= 10;
  return BigInt(sec * 1e9 + frac);
}

const NANOS_PER_SECOND = 1_000_000_000n;

function digit(s: string, i: number): number {
  const d = s.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : NaN; // any non-digit makes the whole number NaN (every check fails)
}

/**
 * The server's form `YYYY-MM-DDTHH:MM:SS.fffffffffZ` (exactly 9 fraction digits, no leap
 * second) with every field in range; undefined for anything else (the codec then decides).
 */
function fastTimestamp(s: string): bigint | undefined {
  if (
    s.length !== 30 ||
    s.charCodeAt(4) !== 45 ||
    s.charCodeAt(7) !== 45 ||
    s.charCodeAt(10) !== 84 /* T */ ||
    s.charCodeAt(13) !== 58 ||
    s.charCodeAt(16) !== 58 ||
    s.charCodeAt(19) !== 46 ||
    s.charCodeAt(29) !== 90 /* Z */
  ) {
    return undefined;
  }
  const year = digit(s, 0) * 1000 + digit(s, 1) * 100 + digit(s, 2) * 10 + digit(s, 3);
  const month = digit(s, 5) * 10 + digit(s, 6);
  const day = digit(s, 8) * 10 + digit(s, 9);
  const hour = digit(s, 11) * 10 + digit(s, 12);
  const minute = digit(s, 14) * 10 + digit(s, 15);
  const second = digit(s, 17) * 10 + digit(s, 18);
  let frac = 0;
  for (let i = 20; i < 29; i++) frac = frac * 10 + digit(s, i);
  // written as positive checks so that NaN (a non-digit) fails them
  if (!(year >= 1 && month >= 1 && month <= 12 && day >= 1 && hour <= 23 && minute <= 59 && second <= 59))
    return undefined;
  if (!(frac >= 0)) return undefined;
  const dim =
    month === 2
      ? (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
        ? 29
        : 28
      : month === 4 || month === 6 || month === 9 || month === 11
        ? 30
        : 31;
  if (!(day <= dim)) return undefined;
  // years 0001..9999 without offset always lie within the codec's range
  const seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
  return BigInt(seconds) * NANOS_PER_SECOND + BigInt(frac);
}
