/**
 * AIP-132 order_by as the cluster reads it: comma-separated keys, each stripped of surrounding
 * spaces, then a field path optionally followed by spaces and `asc` or `desc` (any case; the
 * direction is stripped again, so `" node_id   DESC "` is one valid key). Numbers numerically, strings bytewise
 * (UTF-8), false < true, enums by numeric value, durations and timestamps chronologically.
 * Locally, ties are broken by the resource's key fields (ascending) so the order is total.
 */
import type { EnumTable, FieldType } from '../api/schema/index.ts';
import type { Dialect, PathSegment, ResolvedPath } from './ast.ts';
import { FilterError } from './errors.ts';
import { defaultOf, fieldGetter, type Getter } from './evaluator.ts';
import { resolvePath, specOf, typeName, type ResourceRef } from './field-paths.ts';
import { compareUtf8 } from './utf8.ts';

/** One key of an order_by. */
export interface OrderKey {
  readonly path: ResolvedPath;
  readonly descending: boolean;
}

/** A row comparator. */
export type RowCompare = (a: unknown, b: unknown) => number;

/** Parses and checks an order_by against a resource; '' (or only spaces) means no ordering. */
export function parseOrderBy(input: string, resource: ResourceRef, dialect: Dialect): OrderKey[] {
  const keys: OrderKey[] = [];
  if (/^[ ]*$/.test(input) || (dialect === 'extended' && input.trim() === '')) return keys;
  const isSpace = dialect === 'server' ? (c: string) => c === ' ' : (c: string) => /\s/.test(c);
  let from = 0;
  for (;;) {
    const comma = input.indexOf(',', from);
    const to = comma === -1 ? input.length : comma;
    keys.push(parseKey(input, from, to, resource, dialect, isSpace));
    if (comma === -1) break;
    from = comma + 1;
  }
  return keys;
}

function parseKey(
  input: string,
  from: number,
  to: number,
  resource: ResourceRef,
  dialect: Dialect,
  isSpace: (c: string) => boolean,
): OrderKey {
  let s = from;
  let e = to;
  while (s < e && isSpace(input[s] as string)) s++;
  while (e > s && isSpace(input[e - 1] as string)) e--;
  const fail = (msg: string, a: number, b: number, hint?: string): never => {
    throw new FilterError(msg, input, a, b, hint);
  };
  if (s === e) {
    return fail(
      'empty order_by component',
      from,
      Math.max(to, from + 1),
      'remove the extra comma, or name a field between the commas',
    );
  }
  const bad = /[^A-Za-z0-9_. ]/.exec(input.slice(s, e));
  if (bad !== null && !(dialect === 'extended' && /\s/.test(bad[0]))) {
    const at = s + bad.index;
    const what = /\s/.test(bad[0])
      ? 'only the ASCII space separates a field from its direction'
      : `unexpected ${JSON.stringify(bad[0])} in order_by`;
    return fail(what, at, at + 1);
  }
  let p = s;
  while (p < e && !isSpace(input[p] as string)) p++;
  const pathEnd = p;
  let descending = false;
  if (p < e) {
    let q = p;
    while (q < e && isSpace(input[q] as string)) q++;
    const word = input.slice(q, e);
    const lower = word.toLowerCase();
    if (lower !== 'asc' && lower !== 'desc') {
      return fail(
        `invalid direction ${JSON.stringify(word)}: expected asc or desc`,
        q,
        e,
        word.includes(' ') ? 'separate keys with commas' : undefined,
      );
    }
    descending = lower === 'desc';
  }
  const segments: PathSegment[] = [];
  let segStart = s;
  for (let i = s; i <= pathEnd; i++) {
    if (i === pathEnd || input[i] === '.') {
      const text = input.slice(segStart, i);
      if (text === '') return fail('empty segment in field path', Math.max(s, i - 1), i + 1);
      if (!/^[A-Za-z]/.test(text) && (dialect === 'server' || segments.length === 0)) {
        return fail(`field path segment ${JSON.stringify(text)} must start with a letter`, segStart, i);
      }
      segments.push({ text, start: segStart, end: i });
      segStart = i + 1;
    }
  }
  const path = resolvePath(
    resource,
    { segments, start: s, end: pathEnd },
    dialect === 'server' ? 'server' : 'extended',
    input,
  );
  if (!path.simple || path.type.kind === 'message' || path.type.kind === 'list' || path.type.kind === 'map') {
    return fail(
      `cannot order by ${path.text}: it is ${typeName(path.type)}`,
      s,
      pathEnd,
      'order by a scalar or enum field',
    );
  }
  return { path, descending };
}

/** Prints keys canonically: `node_id desc, client_id`. */
export function printOrderBy(keys: readonly OrderKey[]): string {
  return keys.map((k) => (k.descending ? `${k.path.text} desc` : k.path.text)).join(', ');
}

/** Compiles keys (plus the resource key as a tie-break, unless disabled) into one comparator. */
export function compileOrder(keys: readonly OrderKey[], resource: ResourceRef, tieBreak: boolean): RowCompare {
  const parts: RowCompare[] = keys.map((k) =>
    keyComparator(
      k.path.steps.map((s) => (s.kind === 'field' ? s.wire : '')),
      k.path.type,
      k.descending,
    ),
  );
  if (tieBreak) {
    const { schema, key } = specOf(resource);
    for (const wire of key) {
      const spec = schema.fields[wire];
      if (spec !== undefined) parts.push(keyComparator([wire], spec.type, false));
    }
  }
  if (parts.length === 0) return () => 0;
  if (parts.length === 1) return parts[0] as RowCompare;
  return (a, b) => {
    for (let i = 0; i < parts.length; i++) {
      const c = (parts[i] as RowCompare)(a, b);
      if (c !== 0) return c;
    }
    return 0;
  };
}

function keyComparator(wires: readonly string[], type: FieldType, descending: boolean): RowCompare {
  const get: Getter = fieldGetter(wires);
  const d = defaultOf(type);
  const cmp = valueComparator(type);
  return descending ? (a, b) => cmp(get(b) ?? d, get(a) ?? d) : (a, b) => cmp(get(a) ?? d, get(b) ?? d);
}

function valueComparator(type: FieldType): (x: unknown, y: unknown) => number {
  switch (type.kind) {
    case 'string':
      return (x, y) => compareUtf8(String(x), String(y));
    case 'enum':
      return enumComparator(type.table);
    case 'bool':
      return (x, y) => (x === y ? 0 : x ? 1 : -1);
    default:
      // numbers and bigints (also mixed): `<` works across both
      return (x, y) => {
        const a = x as number | bigint;
        const b = y as number | bigint;
        return a < b ? -1 : a > b ? 1 : 0;
      };
  }
}

/** Enums by numeric value; an unknown name counts as UNSPECIFIED (0), as the server reads it. */
function enumComparator(table: EnumTable): (x: unknown, y: unknown) => number {
  const numbers = new Map<string, number>();
  table.values.forEach((v, i) => numbers.set(v, i));
  for (const [alias, target] of Object.entries(table.aliases)) numbers.set(alias, numbers.get(target) ?? 0);
  return (x, y) => (numbers.get(x as string) ?? 0) - (numbers.get(y as string) ?? 0);
}
