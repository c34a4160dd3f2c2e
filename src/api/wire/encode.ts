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

/** Encodes a decoded message into the JSON tree the server would write. */
export function encodeMessage(schema: MessageSchema, value: Record<string, unknown>): { [key: string]: JsonValue } {
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
