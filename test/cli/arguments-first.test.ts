/**
 * Arguments before the database: every flag (filters, order_by, times, limits, keys, formats)
 * is checked before the database is opened, so a bad one is named (exit 2) even when the
 * database is missing; a database URL of a kind flightrec does not read is refused with the forms
 * it takes; an unknown option gets a did-you-mean; a time that is nearly one says what to add.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { timeHint } from '../../src/cli/commands/time-option.ts';
import { closestOptions } from '../../src/cli/suggest.ts';
import { memoryIo } from '../helpers/memory-io.ts';

async function run(args: readonly string[]): Promise<{ code: number; err: string; out: string }> {
  const io = memoryIo();
  const code = await main(args, io);
  return { code, err: io.err(), out: io.out() };
}

const MISSING = ['--db', 'missing.db'];

describe('every argument is checked before the database is opened', () => {
  const cases: readonly [readonly string[], RegExp][] = [
    [['query', 'connections', '--filter', 'state='], /expected a value after =/],
    [['query', 'connections', '--filter', 'node_id = "x"'], /invalid value "x" for node_id/],
    [['query', 'connections', '--order-by', 'nope'], /unknown field "nope" in connections/],
    [
      ['query', 'connections', '--since', '2026-01-02T00:00:00Z', '--until', '2026-01-01T00:00:00Z'],
      /--since is after --until/,
    ],
    [['query', 'connections', '--limit', 'x'], /--limit/],
    [['query', 'connections', '--at', 'soon'], /^flightrec: --at: invalid time/],
    [
      ['trends', 'shadow-lag', '--by', 'nope'],
      /--by: unknown key of shadow-lag "nope": expected one of partition, topic, link/,
    ],
    [['trends', 'produce-bytes', '--limit', '-1'], /--limit/],
    [
      ['trends', 'shadow-lag', '--since', '2026-01-02T00:00:00Z', '--until', '2026-01-01T00:00:00Z'],
      /--since must not be after --until/,
    ],
    [['timeline', '--min-severity', 'bad'], /--min-severity: unknown severity/],
    [['timeline', '--for', 'nope'], /--for/],
    [['summary', '--window', 'x'], /--window/],
    [['fleet', '--at', 'x'], /--at/],
    [['diff', '--from', 'x', '--to', 'y'], /--from/],
    [['export', '--since', 'x', '--out', '-'], /--since/],
    [['db', 'stats', '-o', 'yaml'], /invalid --output "yaml": expected text or json/],
    [['db', 'log', '--limit', '0'], /--limit/],
    [['db', 'prune', '--older-than', 'x'], /--older-than/],
  ];
  for (const [args, message] of cases) {
    it(`${args.join(' ')}: exit 2, the argument named, not the missing database`, async () => {
      const r = await run([...MISSING, ...args]);
      expect(r.err).toMatch(message);
      expect(r.err).not.toMatch(/no history database/);
      expect(r.code).toBe(2);
    });
  }

  it('names the missing database once the arguments are right', async () => {
    const r = await run([...MISSING, 'query', 'connections', '--filter', 'node_id = 1']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^flightrec: no history database at /);
  });
});

describe('a database URL of another kind', () => {
  for (const [args, scheme] of [
    [['--db', 'mysql://x@y/z', 'query', 'connections'], 'mysql'],
    [['--db', 'sqlite:///tmp/x.db', 'timeline'], 'sqlite'],
    [['--db', 'file:history.db', 'db', 'stats'], 'file'],
    [['--db', 'MongoDB://h/db', 'collect', '--simulate', '--for', '1m'], 'mongodb'],
    [['db', 'copy', '--from', 'mysql://a/b', '--to', 'x.db'], 'mysql'],
    [['db', 'copy', '--from', 'x.db', '--to', 'redis://a/b'], 'redis'],
  ] as const) {
    it(`${args.join(' ')}: refused, naming the forms flightrec reads, and no file made`, async () => {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(new RegExp(`^flightrec: --(db|from|to): ${scheme}: URLs are not supported`));
      expect(r.err).toContain('an SQLite file (a path, e.g. ./flightrec.db) or a PostgreSQL URL (postgres://');
      expect(r.err).not.toMatch(/no history database/);
    });
  }

  it('takes postgres:// and postgresql:// URLs and plain paths as before', async () => {
    // a path that merely holds a colon is a file
    const r = await run(['--db', 'a:b.db', 'timeline']);
    expect(r.err).toMatch(/no history database at \S*a:b\.db/);
  });
});

describe('unknown options and nearly-times', () => {
  it('suggests --min-severity for timeline --severity', async () => {
    const r = await run(['timeline', '--severity', 'error']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^flightrec: unknown option '--severity' \(did you mean --min-severity\?\)/);
  });

  it('keeps commander’s own suggestion for a typo, and suggests nothing far away', async () => {
    expect((await run(['query', 'connections', '--fliter', 'x'])).err).toMatch(/did you mean --filter\?/);
    expect((await run(['timeline', '--zzz'])).err).not.toMatch(/did you mean/);
    expect(closestOptions('--severity', ['--min-severity', '--since'])).toEqual(['--min-severity']);
    expect(closestOptions('--window-size', ['--window', '--size-x'])).toEqual(['--window']);
  });

  it('says what to add to a date alone or a time without a zone', async () => {
    const r = await run(['query', 'connections', '--at', '2026-01-01']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('hint: a date alone is not an instant: add a time and a zone, e.g. 2026-01-01T00:00:00Z');
    expect(timeHint('2026-01-01T10:03')).toBe('add seconds and a zone, e.g. 2026-01-01T10:03:00Z for UTC');
    expect(timeHint('2026-01-01 10:03:04.5')).toBe('add a zone, e.g. 2026-01-01T10:03:04.5Z for UTC');
    expect(timeHint('yesterday')).toBeUndefined();
  });
});
