/**
 * Decoded messages written straight as UTF-8 JSON bytes (byte-out.ts), without the JSON tree of
 * encodeMessage and without a string per fragment: a writer per field type, made once per
 * (schema, indentation, depth), writes what `formatJson(encodeMessage(...))` would write at that
 * depth, byte for byte (field presence, defaults, `$absent`, int64 as decimal strings, enums by
 * name, RFC 3339 timestamps, durations, terminal-unsafe characters escaped as json-quote.ts does).
 * Keys, brackets and indentation are bytes made once. A value the writer does not cover (unknown
 * fields, a value not of its field's JS type, a map key `__proto__`) throws NOT_COVERED: the
 * caller rewinds and writes that item through the tree instead.
 */
import { formatWireDuration } from '../../api/codec/duration.ts';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import type { FieldType, MessageSchema } from '../../api/schema/fields.ts';
import { defaultValue } from '../../api/wire/defaults.ts';
import type { ByteOut } from './byte-out.ts';
import { quote } from './json-quote.ts';

/** Writes a value (of one field type) as JSON at a fixed depth. */
export type ByteWriter = (v: unknown, o: ByteOut) => void;

/** Thrown by a writer for a value it does not cover (the tree path writes it). */
export const NOT_COVERED: unique symbol = Symbol('not covered');

const bail = (): never => {
  throw NOT_COVERED;
};

/** The bytes of a fragment of printable ASCII. */
export const asciiBytes = (s: string): Uint8Array => Buffer.from(s, 'latin1');

const QUOTE = 0x22;
const TRUE = asciiBytes('true');
const FALSE = asciiBytes('false');
const EMPTY_OBJECT = asciiBytes('{}');
const EMPTY_LIST = asciiBytes('[]');

/**
 * Writes a string as quote (json-quote.ts) writes it: printable ASCII without `"` or `\\` (most
 * names and ids) byte for byte between quotes, others through quote and UTF-8.
 */
export function writeQuoted(o: ByteOut, s: string): void {
  const n = s.length;
  o.ensure(n + 2);
  const b = o.buf;
  const start = o.pos;
  let p = start;
  b[p++] = QUOTE;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x7f) {
      o.pos = start;
      o.text(quote(s));
      return;
    }
    b[p++] = c;
  }
  b[p++] = QUOTE;
  o.pos = p;
}

/** Writes a string known to be printable ASCII without `"` or `\\` (made by a formatter) between quotes. */
function writeAsciiQuoted(o: ByteOut, s: string): void {
  const n = s.length;
  o.ensure(n + 2);
  const b = o.buf;
  let p = o.pos;
  b[p++] = QUOTE;
  for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
  b[p++] = QUOTE;
  o.pos = p;
}

/** Field kinds whose values are primitives (a map of them, once frozen, never changes). */
const SCALAR: ReadonlySet<string> = new Set([
  'string',
  'enum',
  'bool',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'duration',
  'timestamp',
]);

/**
 * A writer of maps of primitive values that writes a frozen one's bytes once and copies them
 * afterwards (the store shares one frozen map among the rows that hold it: API versions): a
 * frozen object's keys and values can no longer change. (Messages too measured no faster: most
 * frozen messages a row holds, its source address, are its own.)
 */
function frozenOnce(write: ByteWriter): ByteWriter {
  const made = new WeakMap<object, Uint8Array>();
  return (v, o) => {
    if (typeof v !== 'object' || v === null || !Object.isFrozen(v)) {
      write(v, o);
      return;
    }
    const known = made.get(v);
    if (known !== undefined) {
      o.bytes(known);
      return;
    }
    const start = o.pos;
    write(v, o);
    // a copy: the buffer's bytes are handed over and may be written again
    made.set(v, new Uint8Array(o.buf.subarray(start, o.pos)));
  };
}

/** Writers met so far, by schema, then by `indent/depth`. */
const messageWriters = new WeakMap<MessageSchema, Map<string, ByteWriter>>();

/** The writer of a message schema's values at `depth` (the message's own), indented by `indent` (0: compact). */
export function messageBytes(schema: MessageSchema, indent: number, depth: number): ByteWriter {
  let byDepth = messageWriters.get(schema);
  if (byDepth === undefined) messageWriters.set(schema, (byDepth = new Map()));
  const key = `${indent}/${depth}`;
  let w = byDepth.get(key);
  if (w === undefined) byDepth.set(key, (w = makeMessageBytes(schema, indent, depth)));
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

/** The bytes of JSON text made by the writers themselves (keys through quote: safe, maybe not ASCII). */
const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');

/** What a message writer is made of: per field (schema order), its key bytes, value writer, default. */
interface MessageParts {
  readonly names: readonly string[];
  readonly always: readonly boolean[];
  readonly defaults: readonly unknown[];
  readonly writers: readonly ByteWriter[];
  /** the brace, line break, indentation and key before a field written first */
  readonly first: readonly Uint8Array[];
  /** the comma, line break, indentation and key before a field written after another */
  readonly next: readonly Uint8Array[];
  readonly closing: Uint8Array;
}

function makeMessageBytes(schema: MessageSchema, indent: number, depth: number): ByteWriter {
  const names = Object.keys(schema.fields);
  if (names.includes('__proto__')) return bail;
  const specs = names.map((n) => schema.fields[n]!);
  const layout = layoutOf(indent, depth);
  const parts: MessageParts = {
    names,
    always: specs.map((s) => s.presence === 'always'),
    defaults: specs.map((s) => (s.presence === 'always' ? defaultValue(s.type) : undefined)),
    writers: specs.map((s) => valueBytes(s.type, indent, depth + 1)),
    first: names.map((n) => utf8(`{${layout.inner}${quote(n)}${layout.colon}`)),
    next: names.map((n) => utf8(`,${layout.inner}${quote(n)}${layout.colon}`)),
    closing: utf8(`${layout.close}}`),
  };
  return messageLoop(parts);
}

/**
 * A message writer as a loop over its fields. (A writer compiled per schema, straight-line code
 * reading each field by name, was slower in a fresh process: generated code has no code cache
 * and starts unoptimised; 150 against 99 ms of CPU for 4,845 connections.)
 */
function messageLoop(parts: MessageParts): ByteWriter {
  const { names, always, defaults, writers, first, next, closing } = parts;
  const count = names.length;
  return (v, o) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) bail();
    const m = v as Record<string, unknown>;
    if (m.$unknown !== undefined) bail();
    const absent = m.$absent as readonly string[] | undefined;
    let written = false;
    for (let i = 0; i < count; i++) {
      const name = names[i]!;
      if (absent !== undefined && absent.includes(name)) continue;
      let x = m[name];
      if (x === undefined) {
        if (!always[i]) continue;
        x = defaults[i];
      }
      o.bytes(written ? next[i]! : first[i]!);
      written = true;
      writers[i]!(x, o);
    }
    o.bytes(written ? closing : EMPTY_OBJECT);
  };
}

/** The writer of one field type's values at `depth` (the value's own). */
export function valueBytes(type: FieldType, indent: number, depth: number): ByteWriter {
  switch (type.kind) {
    case 'string':
    case 'enum':
      return (v, o) => writeQuoted(o, typeof v === 'string' ? v : bail());
    case 'bool':
      return (v, o) => o.bytes(v === true ? TRUE : v === false ? FALSE : bail());
    case 'int32':
    case 'uint32':
      return (v, o) => o.ascii(typeof v === 'number' && Number.isFinite(v) ? String(v) : bail());
    case 'int64':
    case 'uint64':
      return (v, o) => writeAsciiQuoted(o, typeof v === 'bigint' ? v.toString(10) : bail());
    case 'duration':
      return (v, o) => writeAsciiQuoted(o, typeof v === 'bigint' ? formatWireDuration(v) : bail());
    case 'timestamp':
      return (v, o) => writeAsciiQuoted(o, typeof v === 'bigint' ? formatTimestamp(v) : bail());
    case 'message': {
      // made on first use: a schema may (in principle) nest itself
      let sub: ByteWriter | undefined;
      return (v, o) => (sub ??= messageBytes(type.message, indent, depth))(v, o);
    }
    case 'list':
      return listBytes(valueBytes(type.element, indent, depth + 1), layoutOf(indent, depth));
    case 'map': {
      const write = mapBytes(valueBytes(type.value, indent, depth + 1), layoutOf(indent, depth));
      return SCALAR.has(type.value.kind) ? frozenOnce(write) : write;
    }
  }
}

function listBytes(element: ByteWriter, layout: Layout): ByteWriter {
  const first = utf8(`[${layout.inner}`);
  const next = utf8(`,${layout.inner}`);
  const closing = utf8(`${layout.close}]`);
  return (v, o) => {
    if (!Array.isArray(v)) bail();
    const list = v as unknown[];
    if (list.length === 0) {
      o.bytes(EMPTY_LIST);
      return;
    }
    for (let i = 0; i < list.length; i++) {
      o.bytes(i === 0 ? first : next);
      element(list[i], o);
    }
    o.bytes(closing);
  };
}

function mapBytes(value: ByteWriter, layout: Layout): ByteWriter {
  const first = utf8(`{${layout.inner}`);
  const next = utf8(`,${layout.inner}`);
  const colon = utf8(layout.colon);
  const closing = utf8(`${layout.close}}`);
  return (v, o) => {
    if (typeof v !== 'object' || v === null) bail();
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) bail();
    const src = v as Record<string, unknown>;
    let written = false;
    for (const key in src) {
      if (key === '__proto__') bail();
      o.bytes(written ? next : first);
      written = true;
      writeQuoted(o, key);
      o.bytes(colon);
      value(src[key], o);
    }
    o.bytes(written ? closing : EMPTY_OBJECT);
  };
}
