/**
 * Small things a new user met: export names the path the user gave when it cannot create it;
 * `db log` keeps its columns aligned when times carry milliseconds; a query at an instant the
 * recording does not cover says which span it does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMaintenanceLog } from '../../src/cli/commands/db-log.ts';
import type { MaintenanceEntry } from '../../src/db/index.ts';
import { recordScenario, runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';

const tmp = tempDir();
const db = tmp.path('history.db');
beforeAll(async () => {
  await recordScenario(db, 'quiet', '1m', ['--connections', '5']);
}, 60_000);
afterAll(() => tmp.remove());

describe('export --out where no file can be made', () => {
  it('names the path given and why, never its temporary file', async () => {
    const r = await runFlightrec(['--db', db, 'export', '--out', '/nonexistent/dir/x.json']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'flightrec: cannot create /nonexistent/dir/x.json: the directory /nonexistent/dir does not exist\n',
    );
    const file = tmp.path('history.db/x.json');
    const under = await runFlightrec(['--db', db, 'export', '--out', file]);
    expect(under.err).toBe(`flightrec: cannot create ${file}: ${db} is not a directory\n`);
    expect(`${r.err}${under.err}`).not.toMatch(/partial/);
  });
});

describe('db log', () => {
  it('aligns its columns when times carry milliseconds', () => {
    const entry = (at: bigint, cutoff: bigint): MaintenanceEntry => ({
      at,
      cluster: 'sim',
      action: 'retention-raw',
      cutoff,
      polls: 12,
      samples: 3400,
      bytes: 123_456,
      durationMs: 7,
    });
    const s = 1_767_225_600_000_000_000n;
    const text = formatMaintenanceLog([entry(s, s - 60_000_000_000n), entry(s + 1_234_000_000n, s + 5_000_000n)]);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('2026-01-01T00:00:00Z');
    expect(lines[2]).toContain('2026-01-01T00:00:01.234Z');
    // every left-aligned column starts where its header starts, the right-aligned ones end where theirs end
    for (const word of ['cluster', 'action', 'cut-off']) {
      const at = lines[0]!.indexOf(word);
      for (const l of lines.slice(1)) expect(`${l[at - 1]}${l[at]}`, `${word} in ${l}`).toMatch(/^ \S$/);
    }
    const end = lines[0]!.indexOf('took') + 'took'.length;
    for (const l of lines) expect(l.length).toBe(end);
  });
});

describe('a query at an unobserved instant', () => {
  it('gives the span the recording covers', async () => {
    const r = await runFlightrec(['--db', db, 'query', 'connections', '--at', '2025-06-01T00:00:00Z']);
    expect(r.code).toBe(0);
    expect(r.err).toBe(
      'warning: connections at 2025-06-01T00:00:00Z: unobserved (no successful poll at or before it); ' +
        'the recording spans 2026-01-01T00:00:00Z to 2026-01-01T00:01:00Z\n',
    );
  });
});
