/**
 * SQL pre-filter: translates a checked filter into a SQLite WHERE clause with bound parameters
 * over the columns a store exposes. The clause selects a superset of the matching rows, never
 * a subset; the compiled closure re-checks every row it returns.
 *
 * Each node yields two conditions: `sup` (implied by the node: every matching row satisfies it)
 * and `sub` (implies the node). NOT swaps them, so negation stays sound for what cannot be
 * translated exactly. Every translated leaf is two-valued (NULL columns read as their default),
 * so SQL's three-valued logic never leaks into NOT. A column may also hold values that SQL cannot
 * compare (`unknown`): a NULL standing for a value outside the INTEGER range (a timestamp after
 * 2262), or a BLOB standing for a string with lone surrogates; a leaf on such a row is true in
 * `sup` and false in `sub`, so the closure decides it.
 */
import type { EnumTable, FieldType } from '../api/schema/index.ts';
import { INT_RANGES } from '../api/codec/int64.ts';
import type { CheckedNode, CheckedRestriction, Literal, Test } from './ast.ts';
import { defaultOf, valuePredicate } from './evaluator.ts';
import { codePointLength } from './utf8.ts';

/** A column (or SQL expression) of the store holding one field path. */
export interface SqlColumn {
  /** a SQL expression chosen by the store, e.g. "c.client_id"; never built from user input */
  sql: string;
  /** how the value is held: INTEGER, 0/1, TEXT, full enum name as TEXT, enum number as INTEGER */
  type: 'text' | 'integer' | 'bool' | 'enum_name' | 'enum_number';
  /** the value a NULL stands for; the field's default when omitted */
  nullAs?: string | number | bigint;
  /**
   * rows whose value SQL cannot compare: `null` (a NULL is a value the column cannot hold, kept
   * elsewhere, not a default), `blob` (a BLOB is a string SQL cannot compare as text)
   */
  unknown?: 'null' | 'blob';
}

/** Columns by snake_case field path (`authentication_info.user_principal`). */
export type SqlColumnMap = Readonly<Record<string, SqlColumn>>;

/** A WHERE clause and its parameters, in order. */
export interface SqlPrefilter {
  where: string;
  params: unknown[];
}

type Frag = boolean | { readonly sql: string; readonly params: readonly unknown[] };
interface Pair {
  readonly sup: Frag;
  readonly sub: Frag;
}

const UNKNOWN: Pair = { sup: true, sub: false };
/** More parameters than this and the pre-filter gives up (SQLite allows 32766). */
const MAX_PARAMS = 30_000;
/** Terms joined flat before the join is split in halves (keeps SQLite's expression depth low). */
const FLAT = 8;

/** Translates a compiled filter's checked tree; `where` is "1" when nothing translates. */
export function toSqlPrefilter(filter: { readonly ast: CheckedNode | undefined }, columns: SqlColumnMap): SqlPrefilter {
  if (filter.ast === undefined) return { where: 'TRUE', params: [] };
  const { sup } = translate(filter.ast, columns);
  if (typeof sup === 'boolean') return { where: sup ? 'TRUE' : 'FALSE', params: [] };
  if (sup.params.length > MAX_PARAMS) return { where: 'TRUE', params: [] };
  return { where: sup.sql, params: [...sup.params] };
}

function translate(node: CheckedNode, columns: SqlColumnMap): Pair {
  switch (node.kind) {
    case 'not': {
      const c = translate(node.child, columns);
      return { sup: not(c.sub), sub: not(c.sup) };
    }
    case 'and':
    case 'or': {
      const parts = node.children.map((c) => translate(c, columns));
      const op = node.kind === 'and' ? 'AND' : 'OR';
      return {
        sup: join(
          parts.map((p) => p.sup),
          op,
        ),
        sub: join(
          parts.map((p) => p.sub),
          op,
        ),
      };
    }
    case 'restriction':
      return leaf(node, columns);
  }
}

function not(f: Frag): Frag {
  return typeof f === 'boolean' ? !f : { sql: `(NOT ${f.sql})`, params: f.params };
}

function join(frags: readonly Frag[], op: 'AND' | 'OR'): Frag {
  const absorbing = op === 'OR';
  const kept: { sql: string; params: readonly unknown[] }[] = [];
  for (const f of frags) {
    if (f === absorbing) return absorbing;
    if (typeof f !== 'boolean') kept.push(f);
  }
  if (kept.length === 0) return !absorbing;
  return balanced(kept, 0, kept.length, op);
}

function balanced(
  fs: readonly { sql: string; params: readonly unknown[] }[],
  from: number,
  to: number,
  op: string,
): { sql: string; params: readonly unknown[] } {
  if (to - from === 1) return fs[from] as { sql: string; params: readonly unknown[] };
  let parts: { sql: string; params: readonly unknown[] }[];
  if (to - from <= FLAT) {
    parts = fs.slice(from, to);
  } else {
    const mid = (from + to) >> 1;
    parts = [balanced(fs, from, mid, op), balanced(fs, mid, to, op)];
  }
  const params: unknown[] = [];
  for (const p of parts) for (const v of p.params) params.push(v);
  return { sql: `(${parts.map((p) => p.sql).join(` ${op} `)})`, params };
}

const frag = (sql: string, ...params: unknown[]): Frag => ({ sql, params });
const exact = (f: Frag): Pair => ({ sup: f, sub: f });

function leaf(node: CheckedRestriction, columns: SqlColumnMap): Pair {
  const { path, test } = node;
  if (!path.simple) return UNKNOWN;
  const col = columns[path.text];
  if (col === undefined) return UNKNOWN;
  const type = path.type;
  const E = col.sql;
  if (test.kind === 'present') {
    if (type.kind === 'message') return UNKNOWN;
    if (path.optional) return exact(frag(`(${E} IS NOT NULL)`));
    if (col.type === 'enum_number') return wrap(col, type, test, { sup: true, sub: frag(`${E} != 0`) });
    const d = toColumn(defaultOf(type), col, type);
    return d === undefined ? UNKNOWN : wrap(col, type, test, exact(frag(`${valueExpr(col, type)} != ?`, d)));
  }
  if (test.kind !== 'compare') return UNKNOWN;
  const { op, value } = test;
  if (op === '!=') {
    const eq = compare(col, type, '=', value);
    if (eq === undefined) return UNKNOWN;
    const w = wrap(col, type, { kind: 'compare', op: '=', value }, eq);
    return { sup: not(w.sub), sub: not(w.sup) };
  }
  const p = compare(col, type, op, value);
  return p === undefined ? UNKNOWN : wrap(col, type, test, p);
}

/**
 * Makes a leaf two-valued: a NULL column counts as its default (nullAs or the field's default),
 * or, for a column whose NULL is an unknown value, satisfies `sup` and fails `sub`; a column
 * whose BLOBs SQL cannot compare does the same for them.
 */
function wrap(col: SqlColumn, type: FieldType, test: Test, p: Pair): Pair {
  const E = col.sql;
  if (col.unknown === 'null') {
    const sup = (f: Frag): Frag =>
      f === true ? true : { sql: `(${fragSql(f)} OR ${E} IS NULL)`, params: fragParams(f) };
    const sub = (f: Frag): Frag =>
      f === false ? false : { sql: `(${fragSql(f)} AND ${E} IS NOT NULL)`, params: fragParams(f) };
    return { sup: sup(p.sup), sub: sub(p.sub) };
  }
  const d = col.nullAs !== undefined ? fromColumn(col.nullAs, col, type) : defaultOf(type);
  const holds = d !== undefined && valuePredicate(test, type)(d);
  const w = (f: Frag): Frag => {
    if (typeof f === 'boolean') return f;
    return holds
      ? { sql: `(${f.sql} OR ${E} IS NULL)`, params: f.params }
      : { sql: `(${f.sql} AND ${E} IS NOT NULL)`, params: f.params };
  };
  if (col.unknown !== 'blob') return { sup: w(p.sup), sub: w(p.sub) };
  const sup = (f: Frag): Frag =>
    f === true ? true : { sql: `(${fragSql(f)} OR typeof(${E}) = 'blob')`, params: fragParams(f) };
  const sub = (f: Frag): Frag =>
    f === false ? false : { sql: `(${fragSql(f)} AND typeof(${E}) != 'blob')`, params: fragParams(f) };
  return { sup: sup(w(p.sup)), sub: sub(w(p.sub)) };
}

/** The SQL of a fragment (`1`/`0` for a constant). */
function fragSql(f: Frag): string {
  return typeof f === 'boolean' ? (f ? 'TRUE' : 'FALSE') : f.sql;
}

function fragParams(f: Frag): readonly unknown[] {
  return typeof f === 'boolean' ? [] : f.params;
}

/** The column as compared: int64 values may be held as decimal TEXT (JSON paths), so CAST them. */
function valueExpr(col: SqlColumn, type: FieldType): string {
  return col.type === 'integer' && (type.kind === 'int64' || type.kind === 'uint64')
    ? `CAST(${col.sql} AS INTEGER)`
    : col.sql;
}

const INT_KINDS = new Set(['int32', 'uint32', 'int64', 'uint64', 'duration', 'timestamp']);

/** The exact (or sup/sub) SQL for `E op literal`, or undefined when it cannot be translated. */
function compare(col: SqlColumn, type: FieldType, op: '=' | '<' | '<=' | '>' | '>=', lit: Literal): Pair | undefined {
  const E = col.sql;
  switch (col.type) {
    case 'integer': {
      if (!INT_KINDS.has(type.kind)) return undefined;
      const v =
        lit.kind === 'int' ? lit.value : lit.kind === 'duration' || lit.kind === 'timestamp' ? lit.nanos : undefined;
      if (v === undefined || v < INT_RANGES.int64.min || v >= INT_RANGES.int64.max) return undefined;
      return exact(
        frag(`${valueExpr(col, type)} ${op} ?`, type.kind === 'int32' || type.kind === 'uint32' ? Number(v) : v),
      );
    }
    case 'bool':
      if (type.kind !== 'bool' || lit.kind !== 'bool' || op !== '=') return undefined;
      return exact(frag(`${E} = ?`, lit.value ? 1 : 0));
    case 'enum_name':
    case 'text':
      if (lit.kind === 'enum' && op === '=') return enumNames(E, lit.table, lit.name);
      if (lit.kind !== 'string' || col.type !== 'text' || lit.text === undefined) return undefined;
      return stringCompare(E, op, lit.text, lit.wildcard);
    case 'enum_number':
      if (lit.kind !== 'enum' || op !== '=' || lit.number < 0) return undefined;
      // unknown names may be held as 0 (UNSPECIFIED): "= 0" is only a superset
      if (lit.number === 0) return { sup: frag(`${E} = 0`), sub: false };
      return exact(frag(`${E} = ?`, lit.number));
  }
}

function enumNames(E: string, table: EnumTable, name: string): Pair {
  const names = [
    name,
    ...Object.entries(table.aliases)
      .filter(([, target]) => target === name)
      .map(([alias]) => alias),
  ];
  if (names.length === 1) return exact(frag(`${E} = ?`, name));
  return exact(frag(`${E} IN (${names.map(() => '?').join(', ')})`, ...names));
}

const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function stringCompare(
  E: string,
  op: '=' | '<' | '<=' | '>' | '>=',
  t: string,
  wildcard: Extract<Literal, { kind: 'string' }>['wildcard'],
): Pair {
  if (op !== '=' || wildcard === 'none') return exact(frag(`${E} ${op} ?`, t));
  if (wildcard === 'any') return exact(true);
  const n = codePointLength(t);
  const pattern =
    wildcard === 'prefix' ? `${likeEscape(t)}%` : wildcard === 'suffix' ? `%${likeEscape(t)}` : `%${likeEscape(t)}%`;
  // LIKE ignores ASCII case (a superset); the case-sensitive form is exact and serves negation
  const sup = frag(`${E} LIKE ? ESCAPE '\\'`, pattern);
  const sub =
    wildcard === 'prefix'
      ? frag(`substr(${E}, 1, ?) = ?`, n, t)
      : wildcard === 'suffix'
        ? frag(`substr(${E}, ?) = ?`, -n, t)
        : frag(`instr(${E}, ?) > 0`, t);
  return { sup, sub };
}

/** A JS default value in the column's representation (for `!= default`). */
function toColumn(v: unknown, col: SqlColumn, type: FieldType): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (col.type === 'enum_number' && type.kind === 'enum') return Math.max(0, type.table.values.indexOf(String(v)));
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string') return v;
  return undefined;
}

/** A column's nullAs in the row representation the closures see. */
function fromColumn(v: string | number | bigint, col: SqlColumn, type: FieldType): unknown {
  switch (col.type) {
    case 'bool':
      return Number(v) !== 0;
    case 'enum_number':
      return type.kind === 'enum' ? (type.table.values[Number(v)] ?? String(v)) : undefined;
    case 'integer':
      return type.kind === 'int32' || type.kind === 'uint32' ? Number(v) : BigInt(v);
    default:
      return String(v);
  }
}
