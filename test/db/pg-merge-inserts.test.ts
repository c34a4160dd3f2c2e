// Queued single-row INSERTs of one statement become multi-row INSERTs; nothing else is merged.
import { describe, expect, it } from 'vitest';
import { combineInserts, mergeInserts } from '../../src/db/engines/pg/merge-inserts.ts';

const ins = 'INSERT INTO t (a, b) VALUES ($1, $2)';

describe('mergeInserts', () => {
  it('merges consecutive runs of one single-row INSERT, renumbering the parameters', () => {
    const out = mergeInserts([
      { sql: ins, params: [1, 'x'] },
      { sql: ins, params: [2, 'y'] },
      { sql: 'UPDATE t SET b = $1 WHERE a = $2', params: ['z', 1] },
      { sql: ins, params: [3, 'w'] },
    ]);
    expect(out.map((s) => [s.sql, s.params, s.rows])).toEqual([
      ['INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)', [1, 'x', 2, 'y'], 2],
      ['UPDATE t SET b = $1 WHERE a = $2', ['z', 1], 1],
      [ins, [3, 'w'], 1],
    ]);
  });

  it('leaves upserts, RETURNING, reordered placeholders and expressions alone', () => {
    for (const sql of [
      'INSERT INTO t (a) VALUES ($1) ON CONFLICT (a) DO NOTHING',
      'INSERT INTO t (a) VALUES ($1) RETURNING id',
      'INSERT INTO t (a, b) VALUES ($2, $1)',
      'INSERT INTO t (a, b) VALUES ($1, $2 + 1)',
      "INSERT INTO t (a, b) VALUES ($1, 'gzip')",
    ]) {
      const out = mergeInserts([
        { sql, params: [1, 2] },
        { sql, params: [3, 4] },
      ]);
      expect(out, sql).toHaveLength(2);
    }
  });

  it('stays under the protocol limit of 65,535 parameters per statement', () => {
    const wide = 'INSERT INTO t (a, b, c) VALUES ($1, $2, $3)';
    const out = mergeInserts(Array.from({ length: 50_000 }, (_, i) => ({ sql: wide, params: [i, i, i] })));
    expect(out.every((s) => s.params.length <= 65_535)).toBe(true);
    expect(out.reduce((n, s) => n + s.rows, 0)).toBe(50_000);
  });
});

describe('combineInserts', () => {
  it('runs consecutive plain INSERTs as one statement of CTEs, renumbering their parameters', () => {
    const out = combineInserts(
      mergeInserts([
        { sql: "SELECT set_config('x', $1, true)", params: ['7'] },
        { sql: 'INSERT INTO p (id, at) VALUES ($1, $2)', params: [1, 10] },
        { sql: ins, params: [1, 'x'] },
        { sql: ins, params: [2, 'y'] },
        { sql: 'UPDATE t SET b = $1 WHERE a = $2', params: ['z', 1] },
        { sql: ins, params: [3, 'w'] },
      ]),
    );
    expect(out.map((s) => [s.sql, s.params, s.parts.map((p) => p.rows)])).toEqual([
      ["SELECT set_config('x', $1, true)", ['7'], [1]],
      [
        'WITH s0 AS (INSERT INTO p (id, at) VALUES ($1, $2) RETURNING 1), s1 AS (INSERT INTO t (a, b) VALUES ($3, $4), ($5, $6) RETURNING 1) ' +
          'SELECT (SELECT count(*) FROM s0), (SELECT count(*) FROM s1)',
        [1, 10, 1, 'x', 2, 'y'],
        [1, 2],
      ],
      ['UPDATE t SET b = $1 WHERE a = $2', ['z', 1], [1]],
      [ins, [3, 'w'], [1]],
    ]);
  });

  it('never combines upserts, RETURNING or expressions, and stays under 65,535 parameters', () => {
    const upsert = 'INSERT INTO t (a) VALUES ($1) ON CONFLICT (a) DO NOTHING';
    const out = combineInserts(
      mergeInserts([
        { sql: ins, params: [1, 'x'] },
        { sql: upsert, params: [1] },
        { sql: ins, params: [2, 'y'] },
      ]),
    );
    expect(out.map((s) => s.parts.length)).toEqual([1, 1, 1]);
    // a statement given more or fewer parameters than it has placeholders runs alone (and fails alone)
    const odd = combineInserts(
      mergeInserts([
        { sql: 'INSERT INTO p (id) VALUES ($1)', params: [1, 2] },
        { sql: ins, params: [1, 'x'] },
      ]),
    );
    expect(odd.map((s) => s.parts.length)).toEqual([1, 1]);
    const wide = 'INSERT INTO w (a, b, c) VALUES ($1, $2, $3)';
    const other = 'INSERT INTO v (a, b, c) VALUES ($1, $2, $3)';
    const many = combineInserts(
      mergeInserts(
        Array.from({ length: 60_000 }, (_, i) => ({ sql: i % 20_000 < 10_000 ? wide : other, params: [i, i, i] })),
      ),
    );
    expect(many.every((s) => s.params.length <= 65_535)).toBe(true);
    expect(many.reduce((n, s) => n + s.parts.reduce((m, p) => m + p.rows, 0), 0)).toBe(60_000);
  });
});
