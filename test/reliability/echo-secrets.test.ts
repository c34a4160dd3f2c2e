/**
 * Issue 19's done-when for secrets: a password (and a bearer token) is configured, the hostile
 * server echoes it in every encoding (error messages and details, unknown fields of successful
 * answers, the request headers copied into bodies; plain, `\uXXXX`-escaped, URL-encoded,
 * base64 of the secret and of `user:secret`), and it is found nowhere: not in the database
 * file, not in its WAL while the collector still writes, not in any raw body (decompressed),
 * not in what the collector printed, not in `export` with or without `--redact`. Each poll
 * that had one records that a redaction happened.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Collector,
  connectClientFactory,
  createReporter,
  defaultCluster,
  defaultCollectorConfig,
  OPERATION_ORDER,
  type CollectorConfig,
} from '../../src/collector/index.ts';
import { openRecordingStore, type FlightrecDb } from '../../src/db/index.ts';
import { startSimServer, type SimServer } from '../../src/sim/index.ts';
import { encodings, uEscaped } from '../fixtures/hostile-server/echo.ts';
import { ISSUE_MODES } from '../fixtures/hostile-server/modes.ts';
import { startHostileServer, type HostileServer } from '../fixtures/hostile-server/server.ts';
import { runCli } from './support/cli.ts';

const USER = 'flightrec';
const PASSWORD = 'hunter2/p@ss w:rd"x';
const TOKEN = 'tok_9f8e7d6c5b4a3f2e1d0c';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-echo-'));
let sim: SimServer;
let server: HostileServer;

/** Every form of a secret that must not be found (its encodings, and its distinctive start). */
function needles(secret: string, user?: string): string[] {
  const forms = Object.values(encodings(secret, user));
  return [...forms, secret, secret.slice(0, 7), uEscaped(secret).slice(0, 36), JSON.stringify(secret).slice(1, -1)];
}

/** The needles found in `text` (by name of the place). */
function leaks(places: Record<string, string | Buffer>, list: readonly string[]): string[] {
  const out: string[] = [];
  for (const [where, content] of Object.entries(places)) {
    const text = typeof content === 'string' ? content : content.toString('latin1');
    const utf8 = typeof content === 'string' ? content : content.toString('utf8');
    for (const n of list) if (text.includes(n) || utf8.includes(n)) out.push(`${where}: ${n}`);
  }
  return out;
}

function config(
  auth: CollectorConfig['clusters'][number]['auth'],
  links: { name: string; topics: string[] }[],
): CollectorConfig {
  const cluster = { ...defaultCluster('echo', server.url), timeoutMs: 2000, auth, shadowLinks: links };
  return { ...defaultCollectorConfig([cluster]), jitterMs: 0, keepRawAnswers: true };
}

beforeAll(async () => {
  sim = await startSimServer({ seed: 5, clock: 'manual', connections: 30 });
  server = await startHostileServer(sim, ISSUE_MODES);
  server.setMode('echo-secret');
});

afterAll(async () => {
  await server.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function record(name: string, auth: CollectorConfig['clusters'][number]['auth'], env: Record<string, string>) {
  const path = join(dir, `${name}.db`);
  const lines: string[] = [];
  let db: FlightrecDb | undefined;
  const d = sim.describe();
  const links = d.links.map((l) => ({
    name: l,
    topics: d.topics
      .filter((t) => t.link === l)
      .map((t) => t.topic)
      .slice(0, 2),
  }));
  const collector = new Collector({
    config: config(auth, links),
    writer: openRecordingStore(path, { keepRawAnswers: true, onOpen: (x) => (db = x) }),
    env,
    now: Date.now,
    clientFactory: connectClientFactory,
    reporter: createReporter({ write: (s: string) => void lines.push(s) }),
    sleep: async () => true,
  });
  for (let i = 0; i < 3; i++) for (const op of OPERATION_ORDER) await collector.runRound('echo', op);
  // while the collector is still open: the WAL holds the latest pages
  const wal = existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : Buffer.alloc(0);
  const raws = (db!.sqlite.prepare('SELECT body FROM poll_raw').pluck().all() as Buffer[]).map((b) => gunzipSync(b));
  const redactions = db!.sqlite.prepare('SELECT count(*) FROM poll WHERE redactions > 0').pluck().get() as number;
  const polls = db!.sqlite.prepare('SELECT count(*) FROM poll').pluck().get() as number;
  await collector.shutdown();
  return { path, lines: lines.join(''), wal, raws, redactions, polls, stats: collector.stats };
}

describe('a server that echoes the credentials in every encoding', () => {
  for (const [name, auth, env, secret, user] of [
    [
      'basic',
      { kind: 'basic', username: USER, passwordEnv: 'ECHO_PASSWORD' },
      { ECHO_PASSWORD: PASSWORD },
      PASSWORD,
      USER,
    ],
    ['bearer', { kind: 'bearer', tokenEnv: 'ECHO_TOKEN' }, { ECHO_TOKEN: TOKEN }, TOKEN, undefined],
  ] as const) {
    it(`${name}: the secret is nowhere in the database, the WAL, raw bodies, output or exports`, async () => {
      const r = await record(name, auth as never, env as never);
      const list = needles(secret, user);
      expect(r.polls).toBeGreaterThan(20);
      expect(r.raws.length).toBeGreaterThan(10);
      // the server did echo it, and the polls say a redaction happened
      expect(r.redactions).toBeGreaterThan(10);
      expect(r.stats.redactions).toBeGreaterThan(10);
      expect(r.raws.some((b) => b.toString('utf8').includes('[redacted]'))).toBe(true);

      const places: Record<string, string | Buffer> = { database: readFileSync(r.path), wal: r.wal, output: r.lines };
      r.raws.forEach((b, i) => (places[`raw body ${i}`] = b));
      for (const redact of [false, true]) {
        const out = join(dir, `${name}-${redact ? 'redacted' : 'plain'}.json`);
        const run = await runCli(['--db', r.path, 'export', ...(redact ? ['--redact'] : []), '--out', out], {
          env: env as never,
        });
        expect(run.code).toBe(0);
        places[`export${redact ? ' --redact' : ''}`] = readFileSync(out);
        places[`export${redact ? ' --redact' : ''} output`] = run.out + run.err;
        if (redact) places['mapping'] = readFileSync(`${out}.mapping.json`);
      }
      const stdout = await runCli(['--db', r.path, 'export', '--out', '-'], { env: env as never });
      places['export --out -'] = stdout.out + stdout.err;
      const polls = await runCli(['--db', r.path, 'query', 'polls', '-o', 'json'], { env: env as never });
      places['query polls'] = polls.out + polls.err;
      expect(leaks(places, list)).toEqual([]);
    });
  }

  it('collect --once through the command line prints none of it either', async () => {
    const db = join(dir, 'cli.db');
    const run = await runCli(
      ['--db', db, 'collect', '--base-url', server.url, '--username', USER, '--once', '--keep-raw-answers'],
      {
        env: { FLIGHTREC_PASSWORD: PASSWORD },
      },
    );
    expect(run.code).toBe(3);
    expect(run.err).toContain('held a configured secret');
    expect(leaks({ stderr: run.err, stdout: run.out, database: readFileSync(db) }, needles(PASSWORD, USER))).toEqual(
      [],
    );
  });
});
