/**
 * Schema-driven decoding of wire JSON: accepts the server's style (every default written) and
 * the compact style (defaults omitted), camelCase and snake_case keys, keeps unknown fields,
 * and reports a mismatch with the JSON path of the offending value.
 */
import { CodecError } from '../codec/errors.ts';
import { decodeWireInt32, decodeWireInt64, describeValue } from '../codec/int64.ts';
import { parseWireDuration } from '../codec/duration.ts';
import { parseTimestamp } from '../codec/timestamp.ts';
import type { JsonValue } from '../codec/lossless-json.ts';
import { camelToSnake, type FieldSpec, type FieldType, type Infer, type MessageSchema } from '../schema/fields.ts';
import { canonicalEnumName } from '../schema/enum-table.ts';
import { defaultValue } from './defaults.ts';
import { ValidationError } from './validation-error.ts';

interface FieldEntry {
  readonly name: string;
  readonly spec: FieldSpec;
}
const lookups = new WeakMap<MessageSchema, Map<string, FieldEntry>>();

function lookupOf(schema: MessageSchema): Map<string, FieldEntry> {
  let map = lookups.get(schema);
  if (!map) {
    map = new Map();
    for (const [name, spec] of Object.entries(schema.fields)) {
      map.set(name, { name, spec });
      map.set(camelToSnake(name), { name, spec });
    }
    lookups.set(schema, map);
  }
  return map;
}

/** Decodes one message; throws ValidationError with the path relative to `value`. */
export function decodeMessage<M extends MessageSchema>(schema: M, value: unknown): Infer<M> {
  return decodeRecord(schema, value) as never;
}

/** Decodes one message without the inferred type (for code generic over schemas). */
export function decodeRecord(schema: MessageSchema, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationError('', `expected object ${schema.name}, got ${describeValue(value)}`);
  }
  const lookup = lookupOf(schema);
  const out: Record<string, unknown> = {};
  let unknown: Record<string, JsonValue> | undefined;
  let oneofSeen: Map<string, string> | undefined;
  for (const key in value) {
    const raw = (value as Record<string, unknown>)[key];
    const entry = lookup.get(key);
    if (entry === undefined) {
      (unknown ??= {})[key] = raw as JsonValue;
      continue;
    }
    const { name, spec } = entry;
    if (raw === null || raw === undefined) continue; // null reads as the default / unset
    if (spec.oneof !== undefined) {
      oneofSeen ??= new Map();
      const other = oneofSeen.get(spec.oneof);
      if (other !== undefined && other !== name) {
        throw new ValidationError(key, `only one of ${other} and ${name} (one-of "${spec.oneof}") may be set`);
      }
      oneofSeen.set(spec.oneof, name);
    }
    try {
      out[name] = decodeValue(spec.type, raw);
    } catch (err) {
      throw rethrow(err, `.${key}`);
    }
  }
  for (const name in schema.fields) {
    if (!(name in out)) {
      const spec = schema.fields[name]!;
      if (spec.presence === 'always') out[name] = defaultValue(spec.type);
    }
  }
  if (unknown !== undefined) out.$unknown = unknown;
  return out;
}

function rethrow(err: unknown, segment: string): unknown {
  if (err instanceof ValidationError) return err.within(segment);
  if (err instanceof CodecError) return new ValidationError('', err.message).within(segment);
  return err;
}

/** Decodes one value of a field type; throws ValidationError with a relative path. */
export function decodeValue(type: FieldType, raw: unknown): unknown {
  switch (type.kind) {
    case 'string':
      if (typeof raw !== 'string') throw new ValidationError('', `expected string, got ${describeValue(raw)}`);
      return raw;
    case 'bool':
      if (typeof raw !== 'boolean') throw new ValidationError('', `expected boolean, got ${describeValue(raw)}`);
      return raw;
    case 'int32':
    case 'uint32':
      return decodeWireInt32(raw, type.kind);
    case 'int64':
    case 'uint64':
      return decodeWireInt64(raw, type.kind);
    case 'duration':
      if (typeof raw !== 'string') throw new ValidationError('', `expected duration string, got ${describeValue(raw)}`);
      return parseWireDuration(raw);
    case 'timestamp':
      if (typeof raw !== 'string') throw new ValidationError('', `expected timestamp string, got ${describeValue(raw)}`);
      return parseTimestamp(raw);
    case 'enum': {
      if (typeof raw === 'string') return canonicalEnumName(type.table, raw) ?? raw;
      if (typeof raw === 'number' && Number.isInteger(raw)) return type.table.values[raw] ?? String(raw);
      throw new ValidationError('', `expected ${type.table.typeName} name, got ${describeValue(raw)}`);
    }
    case 'message':
      return decodeRecord(type.message, raw);
    case 'list': {
      if (!Array.isArray(raw)) throw new ValidationError('', `expected array, got ${describeValue(raw)}`);
      const out = new Array<unknown>(raw.length);
      for (let i = 0; i < raw.length; i++) {
        try {
          out[i] = decodeValue(type.element, raw[i]);
        } catch (err) {
          throw rethrow(err, `[${i}]`);
        }
      }
      return out;
    }
    case 'map': {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        throw new ValidationError('', `expected object (map), got ${describeValue(raw)}`);
      }
      const out: Record<string, unknown> = {};
      for (const key in raw) {
        if (type.keyKind === 'int32' && !/^-?\d{1,10}$/.test(key)) {
          throw new ValidationError(`["${key}"]`, 'map key must be a decimal integer');
        }
        try {
          out[key] = decodeValue(type.value, (raw as Record<string, unknown>)[key]);
        } catch (err) {
          throw rethrow(err, `["${key}"]`);
        }
      }
      return out;
    }
  }
}
