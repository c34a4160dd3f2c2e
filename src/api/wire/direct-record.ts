/**
 * The direct decoder's message readers (see direct-decoder.ts), compiled once per schema. A
 * record whose fields all arrive in schema order, none null (the server's style), is built in
 * one step (record-literal.ts); any other record field by field in input order, as the compiled
 * decoder builds it. Both give the same object, keys in the same order.
 */
import type { JsonValue } from '../codec/lossless-json.ts';
import { camelToSnake, type MessageSchema } from '../schema/fields.ts';
import { compileDefaults, recordDecoderOf } from './compiled-decoder.ts';
import { readKey, readValue, slotOf, type Slot } from './direct-values.ts';
import { plainShape } from './plain-shape.ts';
import { recordLiteral } from './record-literal.ts';
import {
  bail,
  byteMatch,
  DIRECT_MAX_DEPTH,
  expectByte,
  genericValue,
  matchBytes,
  matchNull,
  nextItem,
  skipWs,
  type ByteMatch,
  type JsonBytes,
} from './json-bytes.ts';

const QUOTE = 0x22;

/** Reads the message whose '{' is at the position. */
export type RecordReader = (c: JsonBytes) => Record<string, unknown>;

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

const readers = new WeakMap<MessageSchema, RecordReader>();
const utf8 = new TextEncoder();

/** The reader of a message schema (built once, cached). */
export function recordReaderOf(schema: MessageSchema): RecordReader {
  let reader = readers.get(schema);
  if (reader === undefined) {
    reader = compileRecord(schema);
    readers.set(schema, reader);
  }
  return reader;
}

/** Most fields of a message read in place (one bit each in a 32-bit mask). */
const MAX_FIELDS = 31;

function compileRecord(schema: MessageSchema): RecordReader {
  if (Object.keys(schema.fields).length > MAX_FIELDS) {
    const reference = recordDecoderOf(schema);
    return (c) => reference(genericValue(c));
  }
  const fields: DirectField[] = Object.entries(schema.fields).map(([name, spec], index) => ({
    name,
    index,
    bit: 1 << index,
    key: byteMatch(utf8.encode(JSON.stringify(name))),
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
  const build = recordLiteral(fields.map((f) => f.name));
  // plain objects of one constructor per schema, as the compiled decoder makes them
  const Shape = plainShape();
  /** scratch arrays for the values of records read in schema order (nested reads take their own) */
  const scratch: unknown[][] = [];

  /** The record of the first `n` fields, read in schema order, built field by field. */
  const partial = (values: unknown[], n: number): Record<string, unknown> => {
    const out = new Shape();
    for (let i = 0; i < n; i++) out[fields[i]!.name] = values[i];
    return out;
  };

  return (c) => {
    if (++c.depth > DIRECT_MAX_DEPTH) bail();
    c.p++; // '{'
    const values = scratch.pop() ?? new Array<unknown>(count);
    // undefined while every field so far came in schema order: their values wait in `values`
    let out: Record<string, unknown> | undefined;
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
          if (matchNull(c)) {
            out ??= partial(values, next); // null reads as unset: the field comes later, as a default
          } else {
            const group = field.oneof;
            if (group !== undefined) {
              groups ??= new Map();
              const other = groups.get(group);
              if (other !== undefined && other !== field.name) bail();
              groups.set(group, field.name);
            }
            const value = readValue(c, field.slot);
            if (out === undefined && field.index === next) values[next] = value;
            else (out ??= partial(values, next))[field.name] = value;
            set |= field.bit;
          }
          next = field.index + 1;
        }
        if (!nextItem(c, 0x7d)) break;
      }
    }
    c.depth--;
    if (out === undefined) out = next === count && build !== undefined ? build(values) : partial(values, next);
    values.fill(undefined, 0, count); // holds nothing of the answer once it is built
    scratch.push(values);
    let absent: string[] | undefined;
    for (let i = 0; i < defaultCount; i++) {
      if ((set & defaultBits[i]!) !== 0) continue;
      const d = defaults[i]!;
      out[d.name] = d.fresh === undefined ? d.value : d.fresh();
      (absent ??= []).push(d.name);
    }
    if (unknown !== undefined) out.$unknown = unknown;
    if (absent !== undefined) out.$absent = absent;
    return out;
  };
}
