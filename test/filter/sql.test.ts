/** The SQL pre-filter against a real in-memory SQLite: soundness (superset) as a property, and its shape. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileFilter,
  toSqlPrefilter,
  type Dialect,
  type ResourceRef,
  type SqlColumnMap,
} from '../../src/filter/index.ts';
import { filterArb, rowsArb } from './gen.ts';
import { buildMirror, TEST_WIDTHS, type MirrorOptions } from './support.ts';

const MODES: MirrorOptions[] = [
  { enums: 'name', nullDefaults: false, int64AsText: false },
  { enums: 'number', nullDefaults: true, int64AsText: false },
  { enums: 'name', nullDefaults: true, int64AsText: true },
];

/** For random rows and filters: SQL pre-filter then closure selects exactly what the closure alone does. */
function soundness(resource: ResourceRef, dialect: Dialect, runs: number): { translated: number; total: number } {
  const stats = { translated: 0, total: 0 };
  fc.assert(
    fc.property(
      rowsArb(resource),
      filterArb(resource, dialect),
      fc.integer({ min: 0, max: MODES.length - 1 }),
      (rows, expr, mode) => {
        const filter = compileFilter(expr, { resource, dialect });
        const mirror = buildMirror(resource, rows, MODES[mode] as MirrorOptions);
        try {
          const { where, params } = toSqlPrefilter(filter, mirror.columns);
          stats.total++;
          if (where !== 'TRUE') stats.translated++;
          const selected = mirror.select(where, params);
          const closureOnly = rows.map((r, i) => (filter.matches(r) ? i : -1)).filter((i) => i >= 0);
          const both = [...selected].filter((i) => filter.matches(rows[i] as object)).sort((a, b) => a - b);
          expect(both).toEqual(closureOnly);
        } finally {
          mirror.close();
        }
      },
    ),
    { numRuns: runs },
  );
  return stats;
}

describe('SQL pre-filter soundness (property)', () => {
  it('connections, server dialect', () => {
    const s = soundness('connections', 'server', 400);
    expect(s.translated / s.total).toBeGreaterThan(0.5);
  });
  it('connections, extended dialect', () => {
    const s = soundness('connections', 'extended', 400);
    expect(s.translated / s.total).toBeGreaterThan(0.3);
  });
  it('iceberg partitions (optional offsets), extended dialect', () => {
    soundness('iceberg-partitions', 'extended', 200);
  });
  it('shadow links (one-of alternatives), extended dialect', () => {
    soundness('shadow-links', 'extended', 150);
  });
  it('integer widths, both dialects', () => {
    soundness(TEST_WIDTHS, 'server', 150);
    soundness(TEST_WIDTHS, 'extended', 150);
  });
});

describe('SQL pre-filter shape', () => {
  const columns: SqlColumnMap = {
    node_id: { sql: 'c.node_id', type: 'integer' },
    client_id: { sql: 'c.client_id', type: 'text' },
    state: { sql: 'c.state', type: 'enum_name' },
    'tls_info.enabled': { sql: 'c.tls', type: 'bool' },
    idle_duration: { sql: 'c.idle_ns', type: 'integer' },
    'total_request_statistics.request_count': { sql: 'c.requests', type: 'integer' },
  };
  const sql = (expr: string, dialect: Dialect = 'extended') =>
    toSqlPrefilter(compileFilter(expr, { resource: 'connections', dialect }), columns);

  it('binds every value and takes identifiers only from the column map', () => {
    const { where, params } = sql(`client_id = "x'); DROP TABLE t; --" AND node_id = 1`);
    expect(where).not.toContain('DROP');
    expect(where).toBe('((c.client_id = ? AND c.client_id IS NOT NULL) AND (c.node_id = ? AND c.node_id IS NOT NULL))');
    expect(params).toEqual(["x'); DROP TABLE t; --", 1]);
  });

  it('is TRUE when nothing translates, and for the empty filter', () => {
    expect(sql('')).toEqual({ where: 'TRUE', params: [] });
    expect(sql('group_id = "g"')).toEqual({ where: 'TRUE', params: [] });
    expect(sql('api_versions:3')).toEqual({ where: 'TRUE', params: [] });
  });

  it('keeps the translatable half of an AND and drops an OR with an untranslatable side', () => {
    expect(sql('node_id = 1 AND group_id = "g"').where).toBe('(c.node_id = ? AND c.node_id IS NOT NULL)');
    expect(sql('node_id = 1 OR group_id = "g"').where).toBe('TRUE');
  });

  it('lets a NULL stand for the default value', () => {
    expect(sql('node_id = 0').where).toBe('(c.node_id = ? OR c.node_id IS NULL)');
    expect(sql('node_id != 0').where).toBe('(NOT (c.node_id = ? OR c.node_id IS NULL))');
    expect(sql('state = KAFKA_CONNECTION_STATE_UNSPECIFIED').where).toBe('(c.state = ? OR c.state IS NULL)');
  });

  it('uses LIKE with ESCAPE for wildcards, and an exact form under NOT', () => {
    const pos = sql('client_id = "50%_off\\\\*"');
    expect(pos.where).toBe("(c.client_id LIKE ? ESCAPE '\\' AND c.client_id IS NOT NULL)");
    expect(pos.params).toEqual(['50\\%\\_off\\\\%']);
    const neg = sql('NOT client_id = "ab*"');
    expect(neg.where).toBe('(NOT (substr(c.client_id, 1, ?) = ? AND c.client_id IS NOT NULL))');
    expect(neg.params).toEqual([2, 'ab']);
  });

  it('compares int64 columns as integers and binds bigints', () => {
    const { where, params } = sql('total_request_statistics.request_count > 9007199254740993');
    expect(where).toBe('(CAST(c.requests AS INTEGER) > ? AND c.requests IS NOT NULL)');
    expect(params).toEqual([9007199254740993n]);
    expect(sql('idle_duration >= 1500ms', 'server').params).toEqual([1_500_000_000n]);
  });

  it('honours nullAs', () => {
    const cols: SqlColumnMap = { node_id: { sql: 'n', type: 'integer', nullAs: 7 } };
    const f = (e: string) =>
      toSqlPrefilter(compileFilter(e, { resource: 'connections', dialect: 'server' }), cols).where;
    expect(f('node_id = 7')).toBe('(n = ? OR n IS NULL)');
    expect(f('node_id = 0')).toBe('(n = ? AND n IS NOT NULL)');
  });

  it('survives a 10,000-term AND chain in SQLite (balanced, within the expression depth limit)', () => {
    const expr = Array.from({ length: 10_000 }, (_, i) => `node_id != ${i + 10}`).join(' AND ');
    const rows = [{ nodeId: 1 }, { nodeId: 15 }];
    const mirror = buildMirror(
      'connections',
      rows.map((r) => ({ ...r })),
      MODES[0] as MirrorOptions,
    );
    try {
      const { where, params } = toSqlPrefilter(
        compileFilter(expr, { resource: 'connections', dialect: 'extended' }),
        mirror.columns,
      );
      expect(params.length).toBe(10_000);
      expect([...mirror.select(where, params)]).toEqual([0]);
    } finally {
      mirror.close();
    }
  });
});
