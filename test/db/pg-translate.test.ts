/**
 * The SQLite-to-PostgreSQL translation of the store's statements (src/db/pg/translate.ts): the
 * rewrites the readers need. Executed end to end by test/cli/pg-readers.test.ts on a server.
 */
import { describe, expect, it } from 'vitest';
import { translateToPostgres } from '../../src/db/pg/translate.ts';

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
