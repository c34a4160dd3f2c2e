/**
 * Decoded messages written straight as JSON text, without the JSON tree of encodeMessage: a
 * writer per field type, made once per (schema, indentation, depth), writes what
 * `formatJson(encodeMessage(...))` would write at that depth, byte for byte (field presence,
 * defaults, `$absent`, int64 as decimal strings, enums by name, RFC 3339 timestamps, durations).
 * The fragments are joined once per piece (one flat string, no rope of concatenations to flatten
 * when written). A value the writer does not cover (unknown fields, a value not of its field's JS type, a map key
 * `__proto__`) throws NOT_COVERED: the caller writes that row through the tree instead.
 */
import { formatWireDuration } from '../../api/codec/duration.ts';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import type { FieldType, MessageSchema } from '../../api/schema/fields.ts';
import { defaultValue } from '../../api/wire/defaults.ts';
import { pushQuoted, quote } from './json-quote.ts';

/** Appends a value's (of one field type) JSON text at a fixed depth to `out`, in fragments. */
export type TextWriter = (v: unknown, out: string[]) => void;

/** Thrown by a writer for a value it does not cover (the tree path writes it). */
export const NOT_COVERED: unique symbol = Symbol('not covered');

const bail = (): never => {
  throw NOT_COVERED;
};

/** Writers met so far, by schema, then by `indent/depth`. */
const messageWriters = new WeakMap<MessageSchema, Map<string, TextWriter>>();

/** The writer of a message schema's values at `depth` (the message's own), indented by `indent` (0: compact). */
export function messageText(schema: MessageSchema, indent: number, depth: number): TextWriter {
  let byDepth = messageWriters.get(schema);
  if (byDepth === undefined) messageWriters.set(schema, (byDepth = new Map()));
  const key = `${indent}/${depth}`;
  let w = byDepth.get(key);
  if (w === undefined) byDepth.set(key, (w = makeMessageText(schema, indent, depth)));
  return w;
}

/** Where a value's text breaks lines: before each member, before the closing bracket, after a key. */
interface Layout {
  /** newline and indentation before a member (empty when compact) */
  readonly inner: string;
  /** newline and indentation before the closing bracket */
  readonly close: string;
  /** between a key and its value */
  readonly colon: string;
}

function layoutOf(indent: number, depth: number): Layout {
  const nl = indent > 0 ? '\n' : '';
  const inner = nl + ' '.repeat(indent * (depth + 1));
  return { inner, close: nl + ' '.repeat(indent * depth), colon: indent > 0 ? ': ' : ':' };
}

function makeMessageText(schema: MessageSchema, indent: number, depth: number): TextWriter {
  const names = Object.keys(schema.fields);
  const specs = names.map((n) => schema.fields[n]!);
  const writers = specs.map((s) => valueText(s.type, indent, depth + 1));
  const defaults = specs.map((s) => (s.presence === 'always' ? defaultValue(s.type) : undefined));
  const layout = layoutOf(indent, depth);
  const always = specs.map((s) => s.presence === 'always');
  // the text before a field's value: the brace or comma, the line break and indentation, the key
  const first = names.map((n) => `{${layout.inner}${quote(n)}${layout.colon}`);
  const next = names.map((n) => `,${layout.inner}${quote(n)}${layout.colon}`);
  const closing = `${layout.close}}`;
  const object = (m: Record<string, unknown>, out: string[]): void => {
    if (m.$unknown !== undefined) bail();
    const absent = m.$absent as readonly string[] | undefined;
    const start = out.length;
    for (let i = 0; i < names.length; i++) {
      if (absent !== undefined && absent.includes(names[i]!)) continue;
      let x = m[names[i]!];
      if (x === undefined) {
        if (!always[i]) continue;
        x = defaults[i];
      }
      out.push(out.length === start ? first[i]! : next[i]!);
      writers[i]!(x, out);
    }
    out.push(out.length === start ? '{}' : closing);
  };
  if (names.includes('__proto__')) return bail;
  return (v, out) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) bail();
    object(v as Record<string, unknown>, out);
  };
}

/** The writer of one field type's values at `depth` (the value's own). */
export function valueText(type: FieldType, indent: number, depth: number): TextWriter {
  switch (type.kind) {
    case 'string':
    case 'enum':
      return (v, out) => pushQuoted(out, typeof v === 'string' ? v : bail());
    case 'bool':
      return (v, out) => void out.push(v === true ? 'true' : v === false ? 'false' : bail());
    case 'int32':
    case 'uint32':
      return (v, out) => void out.push(typeof v === 'number' && Number.isFinite(v) ? String(v) : bail());
    case 'int64':
    case 'uint64':
      return (v, out) => void out.push('"', typeof v === 'bigint' ? v.toString(10) : bail(), '"');
    case 'duration':
      return (v, out) => void out.push('"', typeof v === 'bigint' ? formatWireDuration(v) : bail(), '"');
    case 'timestamp':
      return (v, out) => void out.push('"', typeof v === 'bigint' ? formatTimestamp(v) : bail(), '"');
    case 'message': {
      // made on first use: a schema may (in principle) nest itself
      let sub: TextWriter | undefined;
      return (v, out) => (sub ??= messageText(type.message, indent, depth))(v, out);
    }
    case 'list':
      return listText(valueText(type.element, indent, depth + 1), layoutOf(indent, depth));
    case 'map':
      return mapText(valueText(type.value, indent, depth + 1), layoutOf(indent, depth));
  }
}

function listText(element: TextWriter, layout: Layout): TextWriter {
  const first = `[${layout.inner}`;
  const next = `,${layout.inner}`;
  const closing = `${layout.close}]`;
  return (v, out) => {
    if (!Array.isArray(v)) bail();
    const list = v as unknown[];
    if (list.length === 0) {
      out.push('[]');
      return;
    }
    for (let i = 0; i < list.length; i++) {
      out.push(i === 0 ? first : next);
      element(list[i], out);
    }
    out.push(closing);
  };
}

function mapText(value: TextWriter, layout: Layout): TextWriter {
  const first = `{${layout.inner}`;
  const next = `,${layout.inner}`;
  const closing = `${layout.close}}`;
  return (v, out) => {
    if (typeof v !== 'object' || v === null) bail();
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) bail();
    const src = v as Record<string, unknown>;
    const start = out.length;
    for (const key in src) {
      if (key === '__proto__') bail();
      out.push(out.length === start ? first : next);
      pushQuoted(out, key);
      out.push(layout.colon);
      value(src[key], out);
    }
    out.push(out.length === start ? '{}' : closing);
  };
}
