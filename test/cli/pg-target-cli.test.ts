/**
 * `--db postgres://...` on the command line: `info` shows the URL without its password, and a
 * command that cannot reach the server (a closed loopback port) fails naming the host, never the
 * password, whatever the layer that failed wrote.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { dbOpenTarget, dbShown, dbTextsOf, redactingReporter } from '../../src/cli/db-target.ts';
import { main } from '../../src/cli/main.ts';
import type { Reporter } from '../../src/collector/output.ts';
import { exportPath } from '../../src/tui/data/export.ts';
import { memoryIo } from '../helpers/memory-io.ts';

const SECRET = 's3cretpw';
const URL_WITH_SECRET = `postgres://u:${SECRET}@127.0.0.1:1/x`;
const dir = mkdtempSync(join(tmpdir(), 'flightrec-pgcli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

async function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd: dir, env });
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('info with a PostgreSQL URL', () => {
  it('shows the URL without the password, where the password comes from, and the sslmode', async () => {
    const r = await run(['info', '--db', `${URL_WITH_SECRET}?sslmode=require`]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^database +postgres:\/\/u@127\.0\.0\.1:1\/x\?sslmode=require$/m);
    expect(r.out).toMatch(/^databasePassword +from the URL$/m);
    expect(r.out).toMatch(/^databaseTls +sslmode=require$/m);
    expect(r.out + r.err).not.toContain(SECRET);
    vi.stubEnv('FLIGHTREC_DB', URL_WITH_SECRET);
    const json = await run(['info', '-o', 'json'], { PGPASSWORD: 'other' });
    vi.unstubAllEnvs();
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({
      database: 'postgres://u@127.0.0.1:1/x',
      databasePassword: 'from the URL',
    });
    expect(json.out).not.toContain(SECRET);
  });

  it('names the password file or PGPASSWORD without reading them', async () => {
    const file = await run(['info', '--db', 'postgres://u@h/x', '--db-password-file', 'pw.txt']);
    expect(file.out).toContain(`databasePassword  from the file ${join(dir, 'pw.txt')}`);
    const env = await run(['info', '--db', 'postgres://u@h/x'], { PGPASSWORD: SECRET });
    expect(env.out).toMatch(/^databasePassword +from PGPASSWORD$/m);
    expect(env.out).not.toContain(SECRET);
  });

  it('refuses a malformed URL (exit 2) without echoing the password', async () => {
    const r = await run(['info', '--db', `postgres://u:${SECRET}@127.0.0.1:99999/x`]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^flightrec: --db: not a valid PostgreSQL URL/);
    expect(r.err).not.toContain(SECRET);
  });

  it('keeps showing an SQLite file as its resolved path', async () => {
    const r = await run(['info', '--db', 'x.db']);
    expect(r.out).toMatch(new RegExp(`^database +${join(dir, 'x.db').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
    expect(r.out).not.toContain('databasePassword');
  });
});

describe('a command on a server it cannot reach', () => {
  it.each([
    [['summary']],
    [['timeline']],
    [['query', 'connections']],
    [['export', '--out', '-']],
    [['db', 'stats']],
    [['db', 'check']],
    [['db', 'log']],
    [['collect', '--once', '--base-url', 'http://127.0.0.1:9']],
    [['collect', '--once', '--base-url', 'http://127.0.0.1:9', '--log-format', 'json']],
  ])('%j fails naming the host, never the password', async (args) => {
    const r = await run(['--db', URL_WITH_SECRET, ...args]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/^flightrec: /);
    expect(r.err).toContain('127.0.0.1');
    expect(r.out + r.err).not.toContain(SECRET);
  });

  it('the same through FLIGHTREC_DB, with the password percent-encoded', async () => {
    // commander reads the variable from process.env
    vi.stubEnv('FLIGHTREC_DB', 'postgresql://u:s3cret%40pw@127.0.0.1:1/x');
    const r = await run(['summary']);
    vi.unstubAllEnvs();
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('127.0.0.1');
    expect(r.err).not.toMatch(/s3cret/);
  });
});

describe('help', () => {
  it('describes --db as a file or a URL, and --db-password-file', async () => {
    const top = await run(['--help']);
    expect(top.out).toContain('--db <file-or-url>');
    expect(top.out).toMatch(/an SQLite file or a\s+postgres:\/\/ URL/);
    expect(top.out).toContain('--db-password-file <file>');
    const cmd = await run(['summary', '--help']);
    expect(cmd.out).toContain('--db-password-file FILE (env FLIGHTREC_DB_PASSWORD_FILE) or PGPASSWORD');
  });
});

describe('the --db helpers of the command line', () => {
  it('open a URL as given and a file resolved; print either without a password', () => {
    expect(dbOpenTarget(URL_WITH_SECRET, dir)).toBe(URL_WITH_SECRET);
    expect(dbOpenTarget('a.db', dir)).toBe(join(dir, 'a.db'));
    expect(dbShown(URL_WITH_SECRET, dir)).toBe('postgres://u@127.0.0.1:1/x');
    expect(dbShown(`postgres://u:${SECRET}@h:99999/x`, dir)).not.toContain(SECRET);
    expect(dbShown('a.db', dir)).toBe(join(dir, 'a.db'));
  });

  it('find every URL of the command line, --from=URL and FLIGHTREC_DB included', () => {
    expect(
      dbTextsOf(['db', 'copy', '--from=postgres://a:b@h/x', '--to', 'pglite://memory', 'x.db'], {
        FLIGHTREC_DB: 'postgresql://c:d@h/y',
      }),
    ).toEqual(['postgres://a:b@h/x', 'pglite://memory', 'postgresql://c:d@h/y']);
  });

  it("redact the collector's lines (start-up, warnings, errors) but pass rounds through", () => {
    const lines: string[] = [];
    const inner: Reporter = { round: () => lines.push('round'), line: (t) => lines.push(t), status() {}, done() {} };
    const reporter = redactingReporter(inner, [URL_WITH_SECRET]);
    reporter.line(`error: cannot write to ${URL_WITH_SECRET}: password ${SECRET} refused`);
    expect(lines).toEqual(['error: cannot write to postgres://u@127.0.0.1:1/x: password [redacted] refused']);
  });

  it('save the TUI exports of a server database in the working directory, named after the database', () => {
    expect(exportPath(`postgres://u:${SECRET}@h/hist`, { kind: 'overview' }, undefined, 'csv')).toBe(
      'hist-overview-empty.csv',
    );
    expect(exportPath(`postgres://u:${SECRET}@h`, { kind: 'overview' }, undefined, 'json')).toBe(
      'flightrec-overview-empty.json',
    );
    expect(exportPath(join(dir, 'rec.db'), { kind: 'overview' }, undefined, 'csv')).toBe(
      join(dir, 'rec-overview-empty.csv'),
    );
  });
});
