// The SQLite -> PostgreSQL translation of the store's SQL: each rewrite, and the refusals.
import { describe, expect, it } from 'vitest';
import { translateToPostgres } from '../../src/db/engines/pg/translate.ts';

const sql = (s: string): string => translateToPostgres(s).sql;

describe('translate', () => {
  it('numbers ? placeholders, not inside strings, quoted names or comments', () => {
    expect(sql('SELECT a FROM t WHERE b = ? AND c = \'?\' AND "d?" = ? -- ?\n AND e = ?')).toBe(
      'SELECT a FROM t WHERE b = $1 AND c = \'?\' AND "d?" = $2 -- ?\n AND e = $3',
    );
  });

  it('numbers named parameters once per name and lists them', () => {
    const t = translateToPostgres('SELECT 1 FROM t WHERE a = @x AND (b = :y OR :y IS NULL) AND c = $x');
    expect(t.sql).toBe('SELECT 1 FROM t WHERE a = $1 AND (b = $2 OR $2 IS NULL) AND c = $1');
    expect(t.names).toEqual(['x', 'y']);
    expect(translateToPostgres('SELECT ?').names).toBeUndefined();
  });

  it('keeps casts (::) apart from named parameters', () => {
    expect(sql('SELECT value FROM json_each(?)')).toContain('json_array_elements_text($1::json)');
  });

  it('turns json_each(?) into a derived table with value and key, keeping an alias', () => {
    expect(sql('SELECT v.id FROM json_each(?) j JOIN v ON v.id = j.value')).toMatch(
      /^SELECT v\.id FROM \(SELECT je\.value::bigint AS value, je\.ord - 1 AS key FROM json_array_elements_text\(\$1::json\) WITH ORDINALITY AS je\(value, ord\)\) AS j JOIN/,
    );
    expect(sql('DELETE FROM t WHERE id NOT IN (SELECT value FROM json_each(?))')).toMatch(/\) AS json_each\)$/);
    expect(sql('SELECT count(*) FROM json_each(?) WHERE value > 1')).toMatch(/\) AS json_each WHERE value > 1$/);
  });

  it('turns x IN (SELECT value FROM json_each(?)) into x = ANY of an array (index probes, whatever the estimate)', () => {
    expect(sql('UPDATE t SET a = ? WHERE id IN (SELECT value FROM json_each(?))')).toBe(
      'UPDATE t SET a = $1 WHERE id = ANY(ARRAY(SELECT je.value::bigint FROM json_array_elements_text($2::json) AS je(value)))',
    );
    expect(sql('SELECT 1 FROM t WHERE id in ( select value from json_each(?) ) AND b = ?')).toBe(
      'SELECT 1 FROM t WHERE id = ANY(ARRAY(SELECT je.value::bigint FROM json_array_elements_text($1::json) AS je(value))) AND b = $2',
    );
    // NOT IN stays a derived table (no index helps it)
    expect(sql('SELECT 1 FROM t WHERE id NOT IN (SELECT value FROM json_each(?))')).toContain(
      'NOT IN (SELECT value FROM (SELECT',
    );
  });

  it("turns json_each(?, '$') (a list of strings) into text values", () => {
    expect(sql("SELECT id FROM t WHERE uid IN (SELECT value FROM json_each(?, '$')) AND a = ?")).toBe(
      'SELECT id FROM t WHERE uid = ANY(ARRAY(SELECT je.value COLLATE "C" FROM json_array_elements_text($1::json) AS je(value))) AND a = $2',
    );
    expect(sql("SELECT j.value FROM json_each(?, '$') j")).toBe(
      'SELECT j.value FROM (SELECT je.value COLLATE "C" AS value, je.ord - 1 AS key FROM json_array_elements_text($1::json) WITH ORDINALITY AS je(value, ord)) AS j',
    );
    // only as code: the same text inside a string literal stays as it is
    expect(sql("SELECT 'json_each(?)' FROM t")).toBe("SELECT 'json_each(?)' FROM t");
  });

  it('turns blob concatenation into string_agg over bytea, with or without ORDER BY; a column of its own as base64', () => {
    expect(sql("SELECT CAST(group_concat(data, '' ORDER BY first_entity) AS BLOB) FROM c WHERE b = ?")).toBe(
      "SELECT encode(string_agg(data, ''::bytea ORDER BY first_entity), 'base64') AS flightrec_base64 FROM c WHERE b = $1",
    );
    expect(
      sql("SELECT CAST(group_concat(v.packed, '') AS BLOB), CAST(group_concat(e.packed, '') AS BLOB) FROM v"),
    ).toBe(
      "SELECT encode(string_agg(v.packed, ''::bytea), 'base64') AS flightrec_base64, encode(string_agg(e.packed, ''::bytea), 'base64') AS flightrec_base64 FROM v",
    );
    // inside an expression, or with an alias of its own: the plain aggregate (the bridge sees bytea)
    expect(sql("SELECT length(CAST(group_concat(v.packed, '') AS BLOB)) FROM v")).toBe(
      "SELECT length(string_agg(v.packed, ''::bytea)) FROM v",
    );
    expect(sql("SELECT CAST(group_concat(v.packed, '') AS BLOB) AS x FROM v")).toBe(
      "SELECT string_agg(v.packed, ''::bytea) AS x FROM v",
    );
  });

  it('makes LIKE case-insensitive (as SQLite) and leaves ILIKE alone', () => {
    expect(sql("SELECT 1 WHERE a LIKE ? ESCAPE '\\' AND b NOT LIKE ?")).toBe(
      "SELECT 1 WHERE a ILIKE $1 ESCAPE '\\' AND b NOT ILIKE $2",
    );
  });

  it('adds RETURNING id to inserts whose ids the database assigns', () => {
    const t = translateToPostgres('INSERT INTO poll (cluster_id) VALUES (?)');
    expect(t.sql).toBe('INSERT INTO poll (cluster_id) VALUES ($1) RETURNING id');
    expect(t.returnsId).toBe(true);
    expect(translateToPostgres('INSERT INTO conn_chunk (batch) VALUES (?)').returnsId).toBe(false);
    // an insert giving the id itself needs no answer (it can wait with the transaction's writes)
    const given = translateToPostgres('INSERT INTO str (id, h, s) VALUES (?, ?, ?)');
    expect(given.sql).toBe('INSERT INTO str (id, h, s) VALUES ($1, $2, $3)');
    expect(given.returnsId).toBe(false);
    expect(given.reader).toBe(false);
  });

  it('treats LIMIT -1 as no limit', () => {
    expect(sql('SELECT a FROM t LIMIT ?')).toBe('SELECT a FROM t LIMIT nullif(greatest($1, -1), -1)');
    expect(sql('SELECT a FROM t LIMIT @limit')).toBe('SELECT a FROM t LIMIT nullif(greatest($1, -1), -1)');
  });

  it("gives meta's upsert its PostgreSQL key, across string literals", () => {
    expect(
      sql("INSERT INTO meta (key, value) VALUES ('g', 1) ON CONFLICT (key) DO UPDATE SET value = meta.value + 1"),
    ).toBe(
      "INSERT INTO meta (key, value) VALUES ('g', 1) ON CONFLICT (cluster_id, key) DO UPDATE SET value = meta.value + 1",
    );
  });

  it('translates typeof(x) = blob, substr suffixes and instr, with nested parentheses', () => {
    expect(sql("SELECT 1 WHERE (a = ? OR typeof((SELECT s FROM str WHERE id = x)) = 'blob')")).toBe(
      "SELECT 1 WHERE (a = $1 OR (left((SELECT s FROM str WHERE id = x), 1) = U&'\\FFFF'))",
    );
    expect(sql("SELECT 1 WHERE typeof(a) != 'blob'")).toBe(
      "SELECT 1 WHERE NOT coalesce((left(a, 1) = U&'\\FFFF'), false)",
    );
    expect(sql('SELECT substr((SELECT s FROM str WHERE id = x), ?) = ?')).toBe(
      'SELECT right((SELECT s FROM str WHERE id = x), -($1)::int) = $2',
    );
    expect(sql('SELECT substr(a, 1, ?) = ?')).toBe('SELECT substr(a, 1, $1) = $2');
    expect(sql('SELECT instr(a, ?) > 0')).toBe('SELECT strpos(a, $1) > 0');
  });

  it('maps sqlite_master and dbstat to the catalog', () => {
    expect(sql("SELECT name FROM sqlite_master WHERE type = 'table'")).toMatch(
      /FROM \(SELECT CASE c\.relkind.*\) AS sqlite_master WHERE type = 'table'$/s,
    );
    expect(sql('SELECT m.tbl_name, sum(s.pgsize) FROM dbstat s JOIN sqlite_master m ON m.name = s.name')).toMatch(
      /pg_partition_tree.*\) AS s JOIN \(SELECT CASE.*\) AS m ON m\.name = s\.name$/s,
    );
  });

  it('quotes camelCase aliases', () => {
    expect(sql('SELECT first_poll AS firstPoll FROM t')).toBe('SELECT first_poll AS "firstPoll" FROM t');
  });

  it('refuses SQLite-only constructs instead of guessing', () => {
    for (const bad of [
      'INSERT OR REPLACE INTO t VALUES (1)',
      'PRAGMA page_count',
      'SELECT rowid FROM t',
      'SELECT ifnull(a, 0) FROM t',
      "SELECT 1 WHERE a GLOB 'x*'",
      "SELECT typeof(a) = 'integer'",
      'SELECT ? AND @x',
    ]) {
      expect(() => translateToPostgres(bad), bad).toThrow(/not portable|mixes/);
    }
  });

  it('refuses unterminated quotes and comments', () => {
    expect(() => translateToPostgres("SELECT 'a")).toThrow(/unterminated/);
    expect(() => translateToPostgres('SELECT /* a')).toThrow(/unterminated/);
  });
});

const pg = (sql: string): string => translateToPostgres(sql).sql;

describe('readers', () => {
  it('pragma_table_info(?) becomes the table’s columns from information_schema, in order', () => {
    const sql = pg('SELECT name FROM pragma_table_info(?)');
    expect(sql).toContain('FROM information_schema.columns c');
    expect(sql).toContain('c.table_schema = current_schema() AND c.table_name = $1');
    expect(sql).toMatch(/\(c\.ordinal_position - 1\)::bigint AS cid, c\.column_name::text AS name/);
    expect(sql).toMatch(/\) AS pragma_table_info$/);
    expect(sql).not.toMatch(/pragma_table_info\(/);
  });

  it('pragma_table_info keeps an alias, and a keyword after it stays a keyword', () => {
    expect(pg('SELECT t.name FROM pragma_table_info(?) t ORDER BY t.cid')).toMatch(/\) AS t ORDER BY t\.cid$/);
    expect(pg('SELECT name FROM pragma_table_info(?) AS cols')).toMatch(/\) AS cols$/);
    expect(pg("SELECT name FROM pragma_table_info(?) WHERE name = 'poll'")).toMatch(
      /\) AS pragma_table_info WHERE name = 'poll'$/,
    );
    // the parameters after it are numbered after its own
    expect(pg('SELECT count(*) FROM pragma_table_info(?) WHERE name = ?')).toMatch(/table_name = \$1\).*name = \$2$/s);
  });

  it('dbstat sums pg_total_relation_size over each table’s partition tree (pg_partition_tree’s relid)', () => {
    const sql = pg('SELECT sum(pgsize) FROM dbstat');
    expect(sql).toContain('sum(pg_total_relation_size(p.relid))');
    expect(sql).toContain('pg_partition_tree(c.oid::regclass) p');
    expect(sql).not.toContain('p.oid');
    expect(sql).toMatch(/NOT c\.relispartition\) AS dbstat$/);
  });

  it('a PRAGMA statement is still refused (the bridge answers the few pragmas the store reads)', () => {
    expect(() => pg('PRAGMA integrity_check(100)')).toThrow(/not portable to PostgreSQL \(PRAGMA\)/);
  });
});
