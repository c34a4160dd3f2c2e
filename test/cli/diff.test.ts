import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { timestampToMillis } from '../../src/api/codec/timestamp.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { historyDb } from '../fixtures/report/history-db.ts';
import { runCli } from '../fixtures/report/run-cli.ts';
import { scenarioRecords, T } from '../fixtures/report/scenario.ts';

const db = historyDb(scenarioRecords());
afterAll(() => db.cleanup());
const now = (): number => timestampToMillis(T[4]!);
const golden = (name: string): string => readFileSync(new URL(`../fixtures/report/${name}`, import.meta.url), 'utf8');

async function diff(args: string[]) {
  const io = memoryIo({ now });
  const code = await runCli(['--db', db.path, 'diff', ...args], io);
  return { code, out: io.out(), err: io.err() };
}

describe('flightrec diff', () => {
  it('prints the differences and exits 1', async () => {
    const r = await diff(['--from', '2025-09-01T10:00:00Z', '--to', '2025-09-01T10:02:00Z']);
    expect(r.code).toBe(1);
    expect(r.out).toBe(golden('diff.txt'));
  });

  it('renders Markdown and JSON the same as the golden files', async () => {
    const args = ['--from', '2025-09-01T10:00:00Z', '--to', '-2m'];
    expect((await diff([...args, '-o', 'md'])).out).toBe(golden('diff.md'));
    expect((await diff([...args, '-o', 'json'])).out).toBe(golden('diff.json'));
  });

  it('writes the same document as YAML', async () => {
    const r = await diff([
      '--from',
      '2025-09-01T10:00:00Z',
      '--to',
      '2025-09-01T10:02:00Z',
      'shadow-tasks',
      '-o',
      'yaml',
    ]);
    expect(r.code).toBe(1);
    const doc = parseYaml(r.out) as { differences: number; resources: { changed: { key: string }[] }[] };
    expect(doc.differences).toBe(1);
    expect(doc.resources[0]!.changed[0]!.key).toBe('dr-link/consumer-offsets/2/0');
  });

  it('exits 0 when both instants were observed and nothing differs', async () => {
    const r = await diff(['--from', '2025-09-01T10:02:00Z', '--to', 'now', 'connections', '--only', 'state']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('no differences');
    const same = await diff(['--from', '2025-09-01T10:02:00Z', '--to', '2025-09-01T10:02:30Z']);
    expect(same.code).toBe(0);
  });

  it('reports moving values as differences with both values and the delta; --only narrows', async () => {
    const r = await diff(['--from', '2025-09-01T10:00:00Z', '--to', '2025-09-01T10:02:00Z', 'shadow-partitions']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/lag: 0 → 100 \(\+100\)/);
    expect(r.out).toContain('2 changed');
    const state = await diff([
      '--from',
      '2025-09-01T10:00:00Z',
      '--to',
      '2025-09-01T10:02:00Z',
      'shadow-partitions',
      '--only',
      'state',
    ]);
    expect(state.code).toBe(0);
    expect(state.out).toContain('(only state)');
    const bad = await diff(['--from', '-1h', '--to', 'now', '--only', 'moods']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--only');
  });

  it('reports an unobserved instant and exits 2: the differences are unknown (trouble, as diff(1))', async () => {
    const r = await diff([
      '--from',
      '2025-09-01T10:00:00Z',
      '--to',
      '2025-09-01T10:03:00Z',
      'connections',
      'shadow-links',
    ]);
    expect(r.code).toBe(2);
    expect(r.out).toBe(golden('diff-unobserved.txt'));
    expect(r.err).toContain('differences unknown: connections, shadow-links');
  });

  it('exits 2 when the database is missing', async () => {
    const io = memoryIo({ now });
    const code = await runCli(['--db', `${db.path}.missing`, 'diff', '--from', '-1h', '--to', 'now'], io);
    expect(code).toBe(2);
    expect(io.err()).toMatch(/^flightrec: (cannot open|no history database at)/);
  });

  it('exits 2 on bad usage', async () => {
    for (const args of [
      ['--from', '-1h'],
      ['--from', 'soon', '--to', 'now'],
      ['--from', '-1h', '--to', 'now', 'polls'],
      ['--from', '-1h', '--to', 'now', 'brokers'],
      ['--from', 'now', '--to', '-1h'],
      ['--from', '-1h', '--to', 'now', '-o', 'csv'],
    ]) {
      const r = await diff(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).not.toBe('');
    }
  });
});
