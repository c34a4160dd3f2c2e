/**
 * Server-style encoding: every present field written (defaults included), int64 as decimal
 * strings, timestamps in UTC with 9 fraction digits, durations in seconds form, enums by name.
 * What was absent when decoded stays absent: unset optional fields and one-of alternatives, and
 * the plain fields a message's `$absent` names. Unknown fields follow.
 */
import { encodeInt64 } from '../codec/int64.ts';
import { formatWireDuration } from '../codec/duration.ts';
import { formatTimestamp } from '../codec/timestamp.ts';
import type { JsonValue } from '../codec/lossless-json.ts';
import type { FieldType, MessageSchema } from '../schema/fields.ts';
import { defaultValue } from './defaults.ts';
import { compileMessageEncoder, type MessageEncoder } from './encode-compiled.ts';

/** The encoder of each schema met so far (compiled where code generation is allowed). */
const encoders = new WeakMap<MessageSchema, MessageEncoder>();

/** Encodes a decoded message into the JSON tree the server would write. */
export function encodeMessage(schema: MessageSchema, value: Record<string, unknown>): { [key: string]: JsonValue } {
  return encoderOf(schema)(value);
}

/** The encoder of a schema: compiled on first use (encode-compiled.ts), else the general one. */
function encoderOf(schema: MessageSchema): MessageEncoder {
  let e = encoders.get(schema);
  if (e === undefined) {
    const specs = Object.values(schema.fields);
    const general: MessageEncoder = (value) => encodeGeneral(schema, value);
    e =
      compileMessageEncoder(schema, {
        general,
        fallback: (i) => encodeValue(specs[i]!.type, defaultValue(specs[i]!.type)),
        encoders: specs.map((s) => valueEncoder(s.type)),
      }) ?? general;
    encoders.set(schema, e);
  }
  return e;
}

/** The encoder of the kinds whose decoded value is their JSON value. */
const asIs = (v: unknown): JsonValue => v as JsonValue;

/** A function encoding values of one field type, as encodeValue does. */
function valueEncoder(type: FieldType): (v: unknown) => JsonValue {
  switch (type.kind) {
    case 'int64':
    case 'uint64':
      return (v) => encodeInt64(v as bigint);
    case 'duration':
      return (v) => formatWireDuration(v as bigint);
    case 'timestamp':
      return (v) => formatTimestamp(v as bigint);
    case 'message': {
      let sub: MessageEncoder | undefined;
      return (v) => (sub ??= encoderOf(type.message))(v as Record<string, unknown>);
    }
    case 'list': {
      const element = valueEncoder(type.element);
      return (v) => (v as unknown[]).map((e) => element(e));
    }
    case 'map': {
      const value = valueEncoder(type.value);
      const same = value === asIs;
      return (v) => {
        const out: { [key: string]: JsonValue } = {};
        const src = v as Record<string, unknown>;
        if (same) for (const key in src) out[key] = src[key] as JsonValue;
        else for (const key in src) out[key] = value(src[key]);
        return out;
      };
    }
    default:
      // string, bool, int32, uint32, enum: the decoded value is its JSON value
      return asIs;
  }
}

/** encodeMessage field by field: any message, absent and unknown fields included. */
function encodeGeneral(schema: MessageSchema, value: Record<string, unknown>): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  const absent = value.$absent as readonly string[] | undefined;
  for (const name in schema.fields) {
    const spec = schema.fields[name]!;
    if (absent !== undefined && absent.includes(name)) continue;
    const v = value[name];
    if (v === undefined) {
      if (spec.presence === 'always') out[name] = encodeValue(spec.type, defaultValue(spec.type));
      continue;
    }
    out[name] = encodeValue(spec.type, v);
  }
  const unknown = value.$unknown as Record<string, JsonValue> | undefined;
  if (unknown !== undefined) {
    for (const key in unknown) if (!(key in out)) out[key] = unknown[key]!;
  }
  return out;
}

/** Encodes one decoded value of a field type. */
export function encodeValue(type: FieldType, v: unknown): JsonValue {
  switch (type.kind) {
    case 'string':
    case 'bool':
    case 'int32':
    case 'uint32':
      return v as JsonValue;
    case 'int64':
    case 'uint64':
      return encodeInt64(v as bigint);
    case 'duration':
      return formatWireDuration(v as bigint);
    case 'timestamp':
      return formatTimestamp(v as bigint);
    case 'enum':
      return v as string;
    case 'message':
      return encodeMessage(type.message, v as Record<string, unknown>);
    case 'list':
      return (v as unknown[]).map((e) => encodeValue(type.element, e));
    case 'map': {
      const out: { [key: string]: JsonValue } = {};
      const src = v as Record<string, unknown>;
      for (const key in src) out[key] = encodeValue(type.value, src[key]);
      return out;
    }
  }
}
