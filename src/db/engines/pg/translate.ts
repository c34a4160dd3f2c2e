/**
 * The store's SQL is written once, in SQLite's dialect; this turns one statement into
 * PostgreSQL's. It knows a short, tested list of constructs and refuses what it does not know
 * (an SQLite-only construct reaching PostgreSQL is a bug to see, never a silent wrong answer):
 *
 * - `?` placeholders become `$1`, `$2`... (not inside quotes or comments);
 * - `json_each(?)` (a JSON array of ids) becomes a derived table with the same `value` and `key`
 *   columns; `json_each(?, '$')` (the store's spelling for a JSON array of strings) the same with
 *   text values;
 * - `CAST(group_concat(x, '' [ORDER BY y]) AS BLOB)` becomes `string_agg(x, ''::bytea [ORDER BY y])`
 *   (two unordered aggregates of one query see the rows in the same order, on both engines: the
 *   store relies on that to pair version and entity records); as a column of its own (after
 *   SELECT or a comma, before a comma or FROM) it travels as base64 text named BASE64_COLUMN,
 *   which the bridge's worker turns back into bytes: bytea's text form is hex, twice the bytes,
 *   slower to make, send and read for the megabytes of a state's records;
 * - `LIKE` becomes `ILIKE` (SQLite's LIKE ignores ASCII case);
 * - `sqlite_master`, `dbstat` and `pragma_table_info(?)` become views over PostgreSQL's catalog;
 * - an `INSERT` into a table with an `id` column gets `RETURNING id`, for lastInsertRowid (unless
 *   it gives the id itself);
 * - camelCase aliases are quoted (PostgreSQL folds unquoted names to lower case);
 * - `LIMIT ?` takes -1 as no limit; meta's conflict target is (cluster_id, key);
 * - `substr(x, -n)` (two arguments: a suffix) becomes `right(x, n)`, `instr` becomes `strpos`.
 */
import { BASE64_COLUMN } from './bridge-protocol.ts';

/** A translated statement. */
export interface PgStatementText {
  readonly sql: string;
  /** true when the statement returns the inserted ids (`RETURNING id` was added) */
  readonly returnsId: boolean;
  /** true when the statement may return rows (a query, or RETURNING) */
  readonly reader: boolean;
  /** for named parameters (`@x`, `:x`, `$x`): the name of `$1`, `$2`...; undefined for `?` */
  readonly names: readonly string[] | undefined;
}

/** Tables whose rows get their id from the database (lastInsertRowid is read after inserts). */
const ID_TABLES = new Set(['cluster', 'poll', 'str', 'doc', 'conn_batch', 'rollup_group', 'maintenance_log']);

const REFUSED: readonly [RegExp, string][] = [
  [/\bINSERT\s+OR\s+/i, 'INSERT OR ...: write INSERT ... ON CONFLICT'],
  [/\bPRAGMA\b/i, 'PRAGMA'],
  [/\bWITHOUT\s+ROWID\b/i, 'WITHOUT ROWID'],
  [/\browid\b/i, 'rowid'],
  [/\bGLOB\b/i, 'GLOB'],
  [/\bifnull\s*\(/i, 'ifnull(): write coalesce()'],
];

const SQLITE_MASTER = `(SELECT CASE c.relkind WHEN 'v' THEN 'view' WHEN 'i' THEN 'index' ELSE 'table' END AS type,
  c.relname::text AS name, coalesce(t.relname, c.relname)::text AS tbl_name
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_index x ON x.indexrelid = c.oid LEFT JOIN pg_class t ON t.oid = x.indrelid
  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'i', 'I') AND NOT c.relispartition)`;

/**
 * dbstat's (name, pgsize) per table: a table's own pages, its partitions' and its TOAST's, with
 * their indexes (pg_partition_tree lists nothing for a table that is not partitioned).
 */
const DBSTAT = `(SELECT c.relname::text AS name, CASE WHEN c.relkind = 'p'
  THEN (SELECT coalesce(sum(pg_total_relation_size(p.relid)), 0) FROM pg_partition_tree(c.oid::regclass) p)
  ELSE pg_total_relation_size(c.oid) END AS pgsize
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition)`;

/** pragma_table_info(?)'s (cid, name): a table's columns in order, from information_schema. */
const TABLE_INFO = `(SELECT (c.ordinal_position - 1)::bigint AS cid, c.column_name::text AS name
  FROM information_schema.columns c WHERE c.table_schema = current_schema() AND c.table_name = ?)`;

/** Splits SQL into code and quoted/comment spans, so rewrites touch code only. */
function spans(sql: string): { code: boolean; text: string }[] {
  const out: { code: boolean; text: string }[] = [];
  let i = 0;
  let start = 0;
  const push = (end: number, code: boolean) => {
    if (end > start) out.push({ code, text: sql.slice(start, end) });
    start = end;
  };
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" && sql[i + 1] === "'" && sql[i + 2] !== "'") {
      i += 2; // the empty string holds nothing to protect: rewrites may match it (group_concat(x, ''))
    } else if (ch === "'" || ch === '"') {
      push(i, true);
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new Error(`unterminated ${ch} quote in SQL`);
        if (sql[j] === ch) {
          if (sql[j + 1] === ch) j += 2;
          else break;
        } else j++;
      }
      i = j + 1;
      push(i, false);
    } else if (ch === '-' && sql[i + 1] === '-') {
      push(i, true);
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      push(i, false);
    } else if (ch === '/' && sql[i + 1] === '*') {
      push(i, true);
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) throw new Error('unterminated comment in SQL');
      i = end + 2;
      push(i, false);
    } else i++;
  }
  push(sql.length, true);
  return out;
}

const KEYWORDS = new Set([
  'join',
  'where',
  'on',
  'left',
  'inner',
  'cross',
  'group',
  'order',
  'limit',
  'union',
  'using',
]);

function rewriteCode(code: string): string {
  let s = code;
  // x IN (SELECT value FROM json_each(?)): x = ANY of the list as an array, which PostgreSQL
  // answers with index probes whatever the list's length; as a derived table, on a table not yet
  // analyzed, it chose a sequential scan and a hash join (docs/performance.md, "Query plans")
  s = s.replace(
    /(?<!\bNOT\s+)\bIN\s*\(\s*SELECT\s+value\s+FROM\s+json_each(_text)?\(\?\)\s*\)/gi,
    (_m, text: string | undefined) =>
      `= ANY(ARRAY(SELECT ${text === undefined ? 'je.value::bigint' : 'je.value COLLATE "C"'} FROM json_array_elements_text(?::json) AS je(value)))`,
  );
  // json_each(?) [alias]: a derived table with SQLite's value and key columns (text values for
  // json_each_text, what translateToPostgres made of json_each(?, '$'))
  s = s.replace(
    /\bjson_each(_text)?\(\?\)(\s+(?:AS\s+)?([A-Za-z_]\w*))?/gi,
    (_m, text: string | undefined, _a: string | undefined, alias: string | undefined) => {
      const keep = alias !== undefined && !KEYWORDS.has(alias.toLowerCase());
      const value = text === undefined ? 'je.value::bigint' : 'je.value COLLATE "C"';
      const derived = `(SELECT ${value} AS value, je.ord - 1 AS key FROM json_array_elements_text(?::json) WITH ORDINALITY AS je(value, ord))`;
      return `${derived} AS ${keep ? alias : 'json_each'}${keep || alias === undefined ? '' : ` ${alias}`}`;
    },
  );
  s = s.replace(
    /CAST\(\s*group_concat\(\s*([\w.]+)\s*,\s*''\s*(ORDER BY [\w.]+(?:\s+(?:ASC|DESC))?)?\s*\)\s+AS\s+BLOB\s*\)/gi,
    (m: string, expr: string, order: string | undefined, at: number, all: string) => {
      const agg = `string_agg(${expr}, ''::bytea${order === undefined ? '' : ` ${order}`})`;
      const column = /(?:\bSELECT|,)\s*$/i.test(all.slice(0, at)) && /^\s*(?:,|FROM\b)/i.test(all.slice(at + m.length));
      return column ? `encode(${agg}, 'base64') AS ${BASE64_COLUMN}` : agg;
    },
  );
  s = s.replace(/\bNOT\s+LIKE\b/gi, 'NOT ILIKE').replace(/(?<!NOT\s+|I)\bLIKE\b/gi, 'ILIKE');
  s = s.replace(
    /\bsqlite_master\b(\s+(?:AS\s+)?(?!WHERE\b|JOIN\b|ON\b)([A-Za-z_]\w*))?/gi,
    (_m, _a, alias: string | undefined) =>
      alias === undefined ? `${SQLITE_MASTER} AS sqlite_master` : `${SQLITE_MASTER} AS ${alias}`,
  );
  s = s.replace(
    /\bdbstat\b(\s+(?:AS\s+)?(?!WHERE\b|JOIN\b|ON\b)([A-Za-z_]\w*))?/gi,
    (_m, _a, alias: string | undefined) => (alias === undefined ? `${DBSTAT} AS dbstat` : `${DBSTAT} AS ${alias}`),
  );
  s = s.replace(
    /\bpragma_table_info\(\s*\?\s*\)(\s+(?:AS\s+)?([A-Za-z_]\w*))?/gi,
    (_m, _a: string | undefined, alias: string | undefined) => {
      const keep = alias !== undefined && !KEYWORDS.has(alias.toLowerCase());
      return `${TABLE_INFO} AS ${keep ? alias : 'pragma_table_info'}${keep || alias === undefined ? '' : ` ${alias}`}`;
    },
  );
  s = s.replace(/\bAS\s+([a-z]+[A-Z]\w*)\b/g, 'AS "$1"');
  // SQLite's LIMIT -1 is no limit; PostgreSQL's is LIMIT NULL
  s = s.replace(/\bLIMIT\s+(\?|[@:$][A-Za-z_]\w*)/gi, 'LIMIT nullif(greatest($1, -1), -1)');
  return s;
}

/** `typeof(E) = 'blob'` / `!= 'blob'` (text SQLite keeps as a blob) -> the bridge's escaped-text test. */
function rewriteTypeofBlob(sql: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const at = sql.slice(i).search(/\btypeof\(/i);
    if (at < 0) return out + sql.slice(i);
    const open = i + at + 'typeof('.length;
    let depth = 1;
    let j = open;
    while (j < sql.length && depth > 0) {
      if (sql[j] === '(') depth++;
      else if (sql[j] === ')') depth--;
      j++;
    }
    const inner = sql.slice(open, j - 1);
    const rest = /^\s*(=|!=|<>)\s*'blob'/i.exec(sql.slice(j));
    if (rest === null) throw new Error(`SQL not portable to PostgreSQL (typeof): ${sql.slice(0, 200)}`);
    const test = `(left(${inner}, 1) = U&'\\FFFF')`;
    out += sql.slice(i, i + at) + (rest[1] === '=' ? test : `NOT coalesce(${test}, false)`);
    i = j + rest[0].length;
  }
}

/** Calls of `name(` with their top-level arguments, rewritten by `fn` (balanced parentheses). */
function rewriteCalls(sql: string, name: string, fn: (args: string[]) => string): string {
  let out = '';
  let i = 0;
  const re = new RegExp(`\\b${name}\\(`, 'i');
  for (;;) {
    const at = sql.slice(i).search(re);
    if (at < 0) return out + sql.slice(i);
    const open = i + at + name.length + 1;
    const args: string[] = [];
    let depth = 1;
    let j = open;
    let from = open;
    while (j < sql.length && depth > 0) {
      const ch = sql[j];
      if (ch === '(') depth++;
      else if (ch === ')') depth--;
      else if (ch === ',' && depth === 1) {
        args.push(sql.slice(from, j).trim());
        from = j + 1;
      }
      j++;
    }
    args.push(sql.slice(from, j - 1).trim());
    out += sql.slice(i, i + at) + fn(args);
    i = j;
  }
}

/** Translates one statement of the store's SQL to PostgreSQL (throws on an SQLite-only construct). */
export function translateToPostgres(sqlite: string): PgStatementText {
  // json_each(?, '$') (strings): marked before the quotes are set apart
  const parts = spans(sqlite.replace(/\bjson_each\(\?,\s*'\$'\)/gi, 'json_each_text(?)'));
  for (const p of parts) {
    if (!p.code) continue;
    for (const [re, what] of REFUSED) {
      if (re.test(p.text)) throw new Error(`SQL not portable to PostgreSQL (${what}): ${sqlite.slice(0, 200)}`);
    }
  }
  let code = rewriteTypeofBlob(parts.map((p) => (p.code ? rewriteCode(p.text) : p.text)).join(''));
  // SQLite's substr(x, -n) is the last n characters; instr(x, y) is strpos(x, y)
  code = rewriteCalls(code, 'substr', (a) =>
    a.length === 2 ? `right(${a[0]}, -(${a[1]})::int)` : `substr(${a.join(', ')})`,
  );
  code = rewriteCalls(code, 'instr', (a) => `strpos(${a.join(', ')})`);
  // meta's key is (cluster_id, key) on PostgreSQL: every row of the store carries its cluster
  code = code.replace(/(\bINTO\s+meta\b[\s\S]*\bON\s+CONFLICT\s*)\(\s*key\s*\)/i, '$1(cluster_id, key)');
  // placeholders last: the rewrites above may add or move `?`
  let n = 0;
  const names: string[] = [];
  const numbered = spans(code)
    .map((p) =>
      p.code
        ? p.text.replace(/\?|(?<![:\w$])[@:$]([A-Za-z_]\w*)/g, (_m, name: string | undefined) => {
            if (name === undefined) return `$${++n}`;
            const at = names.indexOf(name);
            if (at >= 0) return `$${at + 1}`;
            names.push(name);
            return `$${names.length}`;
          })
        : p.text,
    )
    .join('');
  if (n > 0 && names.length > 0) throw new Error(`SQL mixes ? and named parameters: ${sqlite.slice(0, 200)}`);
  const insert = /^\s*INSERT\s+INTO\s+([A-Za-z_]\w*)/i.exec(numbered);
  const returnsId =
    insert !== null &&
    ID_TABLES.has(insert[1]!.toLowerCase()) &&
    !/\bRETURNING\b/i.test(numbered) &&
    !/^\s*INSERT\s+INTO\s+\w+\s*\(\s*id\s*,/i.test(numbered);
  const sql = returnsId ? `${numbered.trimEnd().replace(/;$/, '')} RETURNING id` : numbered;
  const reader = /^\s*(SELECT|WITH|VALUES)\b/i.test(sql) || /\bRETURNING\b/i.test(sql);
  return { sql, returnsId, reader, names: names.length > 0 ? names : undefined };
}
