/**
 * The command line's help and errors: every subcommand's --help lists the global options that
 * apply to it; every error starts with `flightrec:` (commander's own too) and never shows a stack
 * trace; times the parser accepts, however extreme, never crash a reader.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram, main } from '../../src/cli/main.ts';
import { closestNames } from '../../src/cli/suggest.ts';
import { timestampToMillis } from '../../src/api/codec/timestamp.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { historyDb } from '../fixtures/report/history-db.ts';
import { scenarioRecords, T } from '../fixtures/report/scenario.ts';

const db = historyDb(scenarioRecords());
const dir = mkdtempSync(join(tmpdir(), 'flightrec-errors-'));
afterAll(() => {
  db.cleanup();
  rmSync(dir, { recursive: true, force: true });
});
const now = (): number => timestampToMillis(T[4]!);

async function run(args: string[], cwd = dir): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ now, cwd });
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** Every command path (`query`, `db stats`, `filter check`, ...) of the full program. */
async function commandPaths(): Promise<string[][]> {
  const program = await buildProgram(memoryIo(), () => undefined, ['--help']);
  const paths: string[][] = [];
  const walk = (cmd: Command, prefix: string[]): void => {
    for (const sub of cmd.commands) {
      const path = [...prefix, sub.name()];
      if (sub.commands.length > 0) walk(sub, path);
      else paths.push(path);
    }
  };
  walk(program, []);
  return paths;
}

/** Which global options each command uses, and the -o formats it offers (undefined: -o does not apply). */
const EXPECTED: Record<string, { db: boolean; cluster: boolean; output?: readonly string[] }> = {
  collect: { db: true, cluster: true },
  sim: { db: false, cluster: false },
  demo: { db: false, cluster: false },
  import: { db: true, cluster: true, output: ['text', 'json'] },
  query: { db: true, cluster: true, output: ['table', 'wide', 'json', 'ndjson', 'csv', 'yaml', 'md'] },
  diff: { db: true, cluster: true, output: ['table', 'wide', 'json', 'yaml', 'md'] },
  trends: { db: true, cluster: true, output: ['table', 'wide', 'json', 'csv', 'yaml', 'md'] },
  timeline: {
    db: true,
    cluster: true,
    output: ['table', 'wide', 'json', 'ndjson', 'yaml', 'md', 'html', 'annotations'],
  },
  summary: { db: true, cluster: true, output: ['table', 'json', 'yaml', 'md'] },
  fleet: { db: true, cluster: true, output: ['table', 'json', 'ndjson', 'csv', 'yaml', 'md'] },
  browse: { db: true, cluster: true },
  'filter check': { db: false, cluster: false },
  export: { db: true, cluster: true },
  'db stats': { db: true, cluster: false, output: ['text', 'json'] },
  'db prune': { db: true, cluster: false, output: ['text', 'json'] },
  'db vacuum': { db: true, cluster: false, output: ['text', 'json'] },
  'db check': { db: true, cluster: false, output: ['table', 'json'] },
  'db log': { db: true, cluster: false, output: ['text', 'json'] },
  'db copy': { db: false, cluster: false, output: ['text', 'json'] },
  check: { db: false, cluster: true, output: ['text', 'json'] },
  info: { db: true, cluster: false, output: ['text', 'json'] },
};

describe('--help of every command', () => {
  it('lists the global options that apply to it, -o with the formats it supports', async () => {
    const paths = await commandPaths();
    expect(paths.map((p) => p.join(' ')).sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const path of paths) {
      const name = path.join(' ');
      const want = EXPECTED[name]!;
      const r = await run([...path, '--help']);
      expect(r.code, name).toBe(0);
      const globals = r.out.slice(r.out.indexOf('\nGlobal options'));
      expect(globals, `${name} has a Global options block`).toMatch(/^\nGlobal options/);
      expect(globals.includes('--db <file-or-url>'), `${name}: --db`).toBe(want.db);
      expect(globals.includes('--cluster <name>'), `${name}: --cluster`).toBe(want.cluster);
      const output = /-o, --output <format> +(.*)/.exec(globals)?.[1];
      if (want.output === undefined) expect(output, `${name}: -o`).toBeUndefined();
      else
        expect(output, `${name}: -o`).toBe(
          `${want.output[0]} (default)${want.output.length > 1 ? `, ${want.output.slice(1).join(', ')}` : ''}`,
        );
    }
  });

  it('lists the built-in scenarios, one line each, in sim and collect', async () => {
    for (const cmd of ['sim', 'collect']) {
      const r = await run([cmd, '--help']);
      expect(r.out).toContain('Built-in scenarios');
      for (const name of [
        'quiet',
        'incident',
        'broker-outage',
        'connection-storm',
        'auth-failures',
        'consumer-idle',
        'shadow-link',
        'rolling-upgrade',
        'iceberg',
        'api-faults',
      ]) {
        expect(r.out, `${cmd}: ${name}`).toMatch(new RegExp(`^ {2}${name} +[A-Z].*\\.$`, 'm'));
      }
    }
  });
});

/** Error cases: argv, expected exit code, and what the message must say. */
const ERRORS: [string[], number, RegExp][] = [
  [['qurey'], 2, /^flightrec: unknown command 'qurey' \(did you mean query\?\)/],
  [['query'], 2, /^flightrec: missing required argument 'resource'/],
  [['--db', db.path, 'query', 'connections', '--bogus'], 2, /^flightrec: unknown option '--bogus'/],
  [['--db', db.path, 'query', 'connections', '--at'], 2, /^flightrec: option '--at <time>' argument missing/],
  [
    ['--db', db.path, 'query', 'conections'],
    2,
    /^flightrec: unknown resource "conections" \(did you mean connections\?\)/,
  ],
  [
    ['--db', db.path, 'diff', '--from', '-1h', '--to', 'now', 'shadow-link'],
    2,
    /^flightrec: cannot diff: unknown resource "shadow-link" \(did you mean shadow-links\?\)/,
  ],
  [
    ['--db', db.path, 'trends', 'shadow-lags'],
    2,
    /^flightrec: unknown metric "shadow-lags" \(did you mean shadow-lag\?\)/,
  ],
  [
    ['--db', db.path, 'timeline', '--min-severity', 'eror'],
    2,
    /^flightrec: --min-severity: unknown severity "eror" \(did you mean error\?\)/,
  ],
  [['--db', db.path, 'query', 'connections', '--at', 'soon'], 2, /^flightrec: --at: invalid time "soon"/],
  [['--db', db.path, 'query', 'connections', '--at', '+2h'], 2, /^flightrec: --at: "\+2h" is in the future/],
  [['--db', db.path, '-o', 'csv', 'summary'], 2, /^flightrec: invalid --output "csv"/],
  [['--db', db.path, 'summary', '--window', '-5m'], 2, /^flightrec: --window: duration "-5m" must not be negative/],
  [['filter', 'check', 'state = '], 2, /^flightrec: /],
  [
    ['filter', 'check', '--resource', 'conection', 'a = 1'],
    2,
    /^flightrec: --resource: unknown resource "conection" \(did you mean connections\?\)/,
  ],
  [
    ['import', '--op', 'GetShadowLinks', 'x.json'],
    2,
    /^flightrec: --op: unknown operation "GetShadowLinks" \(did you mean GetShadowLink\?\)/,
  ],
  [
    ['--db', 'missing.db', 'query', 'connections'],
    1,
    /^flightrec: no history database at \S*missing\.db\n.*node \S+\/bin\/flightrec\.js --db missing\.db collect --base-url URL/,
  ],
  [['--db', 'missing.db', 'timeline'], 1, /^flightrec: no history database at /],
  [['--db', 'missing.db', 'db', 'stats'], 1, /^flightrec: no history database at /],
  [['--db', 'missing.db', 'export', '--out', '-'], 1, /^flightrec: no history database at /],
  [['demo', '--out', '.'], 2, /^flightrec: --out \. is a directory/],
  [['collect', '--speed', '2'], 2, /^flightrec: --speed needs --simulate/],
  [['sim', '--port', 'x'], 2, /^flightrec: --port must be a port number/],
];

describe('every error of the command line starts with flightrec:', () => {
  for (const [args, code, message] of ERRORS) {
    it(`${args.filter((a) => a !== db.path).join(' ')} → exit ${code}`, async () => {
      const r = await run(args);
      expect(r.code).toBe(code);
      expect(r.err).toMatch(message);
      expect(r.err).not.toMatch(/\n\s+at |unexpected error/);
    });
  }

  it('points at a demo recording in the working directory when the database is missing', async () => {
    const here = mkdtempSync(join(dir, 'with-demo-'));
    writeFileSync(join(here, 'flightrec-demo.db'), '');
    const r = await run(['timeline'], here);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^flightrec: no history database at \S+flightrec\.db\n/);
    expect(r.err).toContain('add --db flightrec-demo.db');
    // and still how to record one
    expect(r.err).toMatch(/to record one: \S+.* collect --base-url URL/);
  });

  it('suggests only close names', () => {
    expect(closestNames('conections', ['connections', 'polls'])).toEqual(['connections']);
    expect(closestNames('xyz', ['connections', 'polls'])).toEqual([]);
    expect(closestNames('up', ['upgrade', 'upgrade-members', 'polls'])).toEqual(['upgrade', 'upgrade-members']);
  });
});

describe('times the parser accepts never crash a reader', () => {
  const EARLY = '0001-01-01T00:00:00Z';
  const LATE = '9999-01-01T00:00:00Z';
  const cases: string[][] = [
    ['query', 'connections', '--at', EARLY],
    ['query', 'connections', '--at', LATE],
    ['query', 'polls', '--at', EARLY],
    ['query', 'connections', '--since', EARLY, '--until', LATE],
    ['query', 'shadow-partitions', '--since', '-99999999d'],
    ['diff', '--from', EARLY, '--to', LATE],
    ['timeline', '--since', EARLY, '--until', LATE],
    ['timeline', '--until', EARLY],
    ['trends', 'shadow-lag', '--since', EARLY, '--until', LATE],
    ['summary', '--window', '9999999d'],
    ['summary', '--until', EARLY],
    ['summary', '--until', LATE, '--window', '99999999999999999d'],
    ['export', '--since', EARLY, '--until', LATE, '--out', '-'],
    ['db', 'prune', '--older-than', '99999999d'],
    ['db', 'prune', '--older-than', EARLY],
  ];
  for (const args of cases) {
    it(args.join(' '), async () => {
      const r = await run(['--db', db.path, ...args]);
      expect(r.err).not.toMatch(/RangeError|unexpected error|\n\s+at /);
      // a difference (diff: 1), or an unobserved instant (diff: 2, trouble as diff(1) says), is not a crash
      expect(args[0] === 'diff' ? [0, 1, 2] : [0, 1]).toContain(r.code);
    });
  }

  it('reads absolute times alike on the command line and in the browser; the browser counts the rest from its cursor', async () => {
    const { parseTimeArg } = await import('../../src/collector/time-args.ts');
    const { parseTimeInput } = await import('../../src/tui/time-input.ts');
    const nowMs = Date.parse('2026-01-02T00:20:00Z');
    const ns = (iso: string): bigint => BigInt(Date.parse(iso)) * 1_000_000n;
    // a recording of 2026-01-01, the cursor at 10:00 that day
    const ctx = {
      first: ns('2026-01-01T00:00:00Z'),
      latest: ns('2026-01-01T23:00:00Z'),
      cursor: ns('2026-01-01T10:00:00Z'),
      now: BigInt(nowMs) * 1_000_000n,
    };
    for (const text of ['2026-01-01T10:03:00Z', '2026-01-01 10:03:00Z', 'now', EARLY, LATE]) {
      expect(parseTimeInput(text, ctx), text).toBe(parseTimeArg(text, nowMs));
    }
    // on the command line a time of day is the latest such instant at or before now
    expect(parseTimeArg('00:21:30', nowMs)).toBe(ns('2026-01-01T00:21:30Z'));
    expect(parseTimeArg('00:20', nowMs)).toBe(ns('2026-01-02T00:20:00Z'));
    // in the browser, on the recording's day at the cursor, as its tables print times; durations from the cursor
    expect(parseTimeInput('00:20', ctx)).toBe(ns('2026-01-01T00:20:00Z'));
    expect(parseTimeInput('-5m', ctx)).toBe(ns('2026-01-01T09:55:00Z'));
    expect(parseTimeInput('+5m', ctx)).toBe(ns('2026-01-01T10:05:00Z'));
    for (const bad of ['+5m', 'soon', '24:00']) expect(() => parseTimeArg(bad, nowMs), bad).toThrow();
    for (const bad of ['soon', '24:00']) expect(() => parseTimeInput(bad, ctx), bad).toThrow();
  });
});
