/**
 * A schema-guided comparison of a JSON tree as it was sent with the tree flightrec gave back,
 * independent of flightrec's own decoder: the same fields present at every level (keys read as
 * camelCase, `null` as absent), strings identical to the code unit, integers equal as exact
 * integers, enums equal by name or number, unknown fields equal literally. Durations and
 * timestamps are compared as written forms of one instant elsewhere (they have many spellings).
 */
import { JsonNumber, type JsonValue } from '../../src/api/codec/lossless-json.ts';
import { snakeToCamel, type FieldType, type MessageSchema } from '../../src/api/schema/fields.ts';

type Tree = { [key: string]: JsonValue };

function entriesOf(
  schema: MessageSchema,
  tree: Tree,
): { known: Map<string, JsonValue>; unknown: Map<string, JsonValue> } {
  const known = new Map<string, JsonValue>();
  const unknown = new Map<string, JsonValue>();
  for (const [key, value] of Object.entries(tree)) {
    const name = Object.hasOwn(schema.fields, key) ? key : snakeToCamel(key);
    if (Object.hasOwn(schema.fields, name)) {
      if (value !== null) known.set(name, value);
    } else unknown.set(key, value);
  }
  return { known, unknown };
}

function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (a instanceof JsonNumber || b instanceof JsonNumber)
    return a instanceof JsonNumber && b instanceof JsonNumber && a.text === b.text;
  if (typeof a === 'bigint' || typeof b === 'bigint')
    return (
      (typeof a === 'bigint' || typeof a === 'number') &&
      (typeof b === 'bigint' || typeof b === 'number') &&
      BigInt(a) === BigInt(b)
    );
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]!));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Tree)[k]!, (b as Tree)[k]!))
    );
  }
  return Object.is(a, b);
}

function integer(v: JsonValue): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  return undefined;
}

function compareValue(type: FieldType, sent: JsonValue, got: JsonValue, path: string, out: string[]): void {
  switch (type.kind) {
    case 'string':
      if (sent !== got) out.push(`${path}: sent ${JSON.stringify(sent)}, got ${JSON.stringify(got)}`);
      return;
    case 'bool':
      if (sent !== got) out.push(`${path}: sent ${String(sent)}, got ${String(got)}`);
      return;
    case 'int32':
    case 'uint32':
    case 'int64':
    case 'uint64': {
      const a = integer(sent);
      const b = integer(got);
      if (a === undefined || a !== b) out.push(`${path}: sent ${String(sent)}, got ${String(got)}`);
      return;
    }
    case 'enum': {
      const name = (v: JsonValue): JsonValue =>
        typeof v === 'number' ? (type.table.values[v] ?? v) : (type.table.aliases[v as string] ?? v);
      if (name(sent) !== name(got)) out.push(`${path}: sent ${String(sent)}, got ${String(got)}`);
      return;
    }
    case 'duration':
    case 'timestamp':
      if (typeof got !== 'string') out.push(`${path}: got ${String(got)}`);
      return;
    case 'message':
      compareMessage(type.message, sent as Tree, got as Tree, path, out);
      return;
    case 'list': {
      const a = sent as JsonValue[];
      const b = got as JsonValue[];
      if (!Array.isArray(b) || a.length !== b.length) {
        out.push(`${path}: sent ${a.length} items, got ${Array.isArray(b) ? b.length : String(b)}`);
        return;
      }
      a.forEach((x, i) => compareValue(type.element, x, b[i]!, `${path}[${i}]`, out));
      return;
    }
    case 'map': {
      const a = sent as Tree;
      const b = got as Tree;
      const ka = Object.keys(a).sort();
      const kb = Object.keys(b).sort();
      if (ka.join() !== kb.join()) out.push(`${path}: sent keys ${ka.join()}, got ${kb.join()}`);
      for (const k of ka) if (Object.hasOwn(b, k)) compareValue(type.value, a[k]!, b[k]!, `${path}["${k}"]`, out);
      return;
    }
  }
}

/** The differences between a message as sent and as given back (empty when the same). */
export function compareMessage(schema: MessageSchema, sent: Tree, got: Tree, path = '', out: string[] = []): string[] {
  const a = entriesOf(schema, sent);
  const b = entriesOf(schema, got);
  for (const name of a.known.keys()) if (!b.known.has(name)) out.push(`${path}.${name}: sent, not given back`);
  for (const name of b.known.keys())
    if (!a.known.has(name)) out.push(`${path}.${name}: not sent, given back (invented)`);
  for (const [name, value] of a.known) {
    if (b.known.has(name)) compareValue(schema.fields[name]!.type, value, b.known.get(name)!, `${path}.${name}`, out);
  }
  const ua = [...a.unknown.keys()].sort().join();
  const ub = [...b.unknown.keys()].sort().join();
  if (ua !== ub) out.push(`${path}: unknown fields sent ${ua}, given back ${ub}`);
  for (const [key, value] of a.unknown) {
    if (b.unknown.has(key) && !sameJson(value, b.unknown.get(key)!)) out.push(`${path}.${key}: unknown field changed`);
  }
  return out;
}
