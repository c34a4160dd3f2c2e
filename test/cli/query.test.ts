import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { timestampToMillis } from '../../src/api/codec/timestamp.ts';
import { memoryIo, textOf } from '../helpers/memory-io.ts';
import { historyDb } from '../fixtures/report/history-db.ts';
import { runCli } from '../fixtures/report/run-cli.ts';
import { scenarioRecords, T } from '../fixtures/report/scenario.ts';

const db = historyDb(scenarioRecords());
afterAll(() => db.cleanup());
const now = (): number => timestampToMillis(T[4]!);
const golden = (name: string): string => readFileSync(new URL(`../fixtures/report/${name}`, import.meta.url), 'utf8');
const ESC = '\u001b';

async function query(args: string[], opts: { env?: Record<string, string>; isTTY?: boolean } = {}) {
  const io = memoryIo({ now, ...opts });
  const code = await runCli(['--db', db.path, 'query', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

describe('flightrec query', () => {
  it('prints the state as of --at as a table, the same as the golden rendering', async () => {
    const r = await query(['connections', '--at', '2025-09-01T10:02:00Z']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(golden('query-connections.txt'));
    // the table says on stderr which poll answered and when it was observed
    expect(r.err).toBe('note: connections at 2025-09-01T10:02:00Z: poll 5 at 2025-09-01T10:02:00Z, 3 rows\n');
  });

  it('accepts relative times (-2m is two minutes before now)', async () => {
    const r = await query(['connections', '--at', '-2m', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(golden('query-connections.json'));
  });

  it('writes the document in pieces as it is made (chunks of about 64 KB: here one, then the last line end), the same text as the golden one', async () => {
    const io = memoryIo({ now });
    const writes: string[] = [];
    const counted = {
      ...io,
      stdout: { write: (s: string | Uint8Array) => writes.push(textOf(s)) && io.stdout.write(s), isTTY: false },
    };
    expect(await runCli(['--db', db.path, 'query', 'connections', '--at', '-2m', '-o', 'json'], counted)).toBe(0);
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(writes.join('')).toBe(golden('query-connections.json'));
  });

  it('prints wide and Markdown renderings', async () => {
    expect((await query(['connections', '--at', '2025-09-01T10:02:00Z', '-o', 'wide'])).out).toBe(
      golden('query-connections-wide.txt'),
    );
    expect((await query(['connections', '--at', '2025-09-01T10:02:00Z', '-o', 'md'])).out).toBe(
      golden('query-connections.md'),
    );
  });

  it('filters, orders and limits; notes the limit on stderr', async () => {
    const r = await query([
      'connections',
      '--at',
      '2025-09-01T10:01:00Z',
      '--filter',
      'node_id = 1 OR node_id = 3',
      '--order-by',
      'node_id desc',
      '--limit',
      '2',
      '-o',
      'ndjson',
    ]);
    expect(r.code).toBe(0);
    const rows = r.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { nodeId: number; uid: string });
    expect(rows.map((x) => [x.nodeId, x.uid[0]])).toEqual([
      [3, 'c'],
      [1, 'a'],
    ]);
    expect(r.err).toContain('2 of 3 rows');
  });

  it('returns every sample of a range with its time', async () => {
    const r = await query([
      'shadow-partitions',
      '--since',
      '2025-09-01T10:00:00Z',
      '--until',
      '2025-09-01T10:04:00Z',
      '--filter',
      'partition_id = 0',
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(golden('query-partitions-range.txt'));
  });

  it('lists failed polls', async () => {
    const r = await query(['polls', '--filter', 'outcome != "ok"', '-o', 'csv']);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain(',unavailable,503,broker unavailable,');
  });

  it('shows an invalid filter with a caret and exits 2', async () => {
    const r = await query(['connections', '--dialect', 'server', '--filter', 'node_id = 1 OR node_id = 2']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/node_id = 1 OR node_id = 2\n\s+\^+/);
  });

  it('shows an invalid order_by with a caret and exits 2', async () => {
    const r = await query(['connections', '--order-by', 'node_id sideways']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('^');
  });

  it('exits 2 on a bad time, resource, format, limit or flag combination', async () => {
    const bad = [
      ['connections', '--at', 'yesterday'],
      ['nodes'],
      ['connections', '-o', 'xml'],
      ['connections', '--limit', 'ten'],
      ['connections', '--at', 'now', '--since', '-1h'],
      ['connections', '--until', 'now'],
      ['connections', '--dialect', 'sql'],
    ];
    for (const args of bad) {
      const r = await query(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).not.toBe('');
    }
    expect((await query(['connections', '--at', 'yesterday'])).err).toContain('--at: invalid time "yesterday"');
  });

  it('warns when nothing was observed at the instant', async () => {
    const r = await query(['connections', '--at', '2025-08-01T00:00:00Z']);
    expect(r.code).toBe(0);
    expect(r.err).toContain('unobserved');
  });

  it('warns when polls failed after the poll that answers', async () => {
    const r = await query(['connections', '--at', '2025-09-01T10:03:30Z', '-o', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ pollId: '5', failuresSince: 1 });
    expect(r.err).toContain('1 later poll failed (last: unavailable at 2025-09-01T10:03:00Z)');
  });

  it('colours only on a terminal, and never with NO_COLOR or --no-color', async () => {
    const args = ['connections', '--at', '2025-09-01T10:02:00Z'];
    expect((await query(args, { isTTY: true })).out).toContain(ESC);
    expect((await query(args, { isTTY: true, env: { NO_COLOR: '1' } })).out).not.toContain(ESC);
    expect((await query(['--no-color', ...args], { isTTY: true })).out).not.toContain(ESC);
    expect((await query(args)).out).not.toContain(ESC);
  });

  it('exits 1 when the database cannot be opened', async () => {
    const io = memoryIo({ now });
    expect(await runCli(['--db', `${db.dir}/missing.db`, 'query', 'connections'], io)).toBe(1);
    expect(io.err()).toMatch(/^flightrec: no history database at \S*missing\.db\n/);
    // the next step: how to record one, whatever the working directory holds (the demo's recording
    // after npm start), with the checkout's bin by its path (npx flightrec would fetch another package)
    expect(io.err()).toMatch(/to record one: node \S+\/bin\/flightrec\.js --db \S*missing\.db collect --base-url URL/);
  });
});
