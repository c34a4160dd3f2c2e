/** Default values of fields and messages: what "absent" means on the wire. */
import type { FieldType, Infer, MessageSchema } from '../schema/fields.ts';

/** The default value of a field type (empty string, 0, 0n, false, UNSPECIFIED, [], {}, full message). */
export function defaultValue(type: FieldType): unknown {
  switch (type.kind) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int32':
    case 'uint32':
      return 0;
    case 'int64':
    case 'uint64':
    case 'duration':
    case 'timestamp':
      return 0n;
    case 'enum':
      return type.table.values[0];
    case 'list':
      return [];
    case 'map':
      return {};
    case 'message':
      return defaultMessage(type.message);
  }
}

/** A message with every always-present field at its default and no optional field set. */
export function defaultMessage<M extends MessageSchema>(schema: M): Infer<M> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema.fields)) {
    if (spec.presence === 'always') out[name] = defaultValue(spec.type);
  }
  return out as never;
}

const allAbsent = new WeakMap<MessageSchema, readonly string[]>();

/**
 * What an absent message field decodes to: the default message with every one of its plain
 * fields named absent (nothing of it was sent). Evaluation sees the defaults; encoding writes
 * nothing of it (its parent names it absent too).
 */
export function absentMessage(schema: MessageSchema): Record<string, unknown> {
  let names = allAbsent.get(schema);
  if (names === undefined) {
    names = Object.freeze(Object.keys(schema.fields).filter((name) => schema.fields[name]!.presence === 'always'));
    allAbsent.set(schema, names);
  }
  const out: Record<string, unknown> = {};
  for (const name of names) out[name] = defaultValue(schema.fields[name]!.type);
  if (names.length > 0) out.$absent = names;
  return out;
}
