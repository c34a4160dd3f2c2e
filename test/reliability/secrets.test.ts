/**
 * Item 6 of the reliability issue: secrets and access. Passwords and tokens given by
 * environment or file, right or wrong, echoed back by a hostile server, or misplaced (inline in
 * a config file, in a URL) never appear in any output of any command nor in any file the run
 * produced (databases, their WAL, exports, mappings; compressed raw bodies included). Database
 * and exported files are created 0600. TLS verification is on unless explicitly disabled.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { startSimServer, type SimServer } from '../../src/sim/index.ts';
import { answer, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';
import { runCli, type CliRun } from './support/cli.ts';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.ts';
import { echoAuthorization } from './support/mutations.ts';

const USER = 'flightrec';
const PASSWORD = 'pw-Zq8r3-Secret-77';
const TOKEN = 'tok-Aa9-Secret-Bearer-55';
const WRONG = 'wrong-Secret-pw-99';
const INLINE = 'inline-Secret-in-config-31';
const IN_URL = 'url-Secret-pw-13';
const SECRETS = [
  PASSWORD,
  TOKEN,
  WRONG,
  INLINE,
  IN_URL,
  Buffer.from(`${USER}:${PASSWORD}`).toString('base64'),
  Buffer.from(`${USER}:${WRONG}`).toString('base64'),
];

const root = mkdtempSync(join(tmpdir(), 'flightrec-secrets-'));
const work = join(root, 'work');
const secrets = join(root, 'secrets');
mkdirSync(work);
mkdirSync(secrets);
const runs: { argv: string[]; run: CliRun }[] = [];
let basicSim: SimServer;
let bearerSim: SimServer;
let proxy: FaultProxy;

/** Runs a command in the work directory with secrets in the environment, and keeps its output for the grep. */
async function cli(argv: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const run = await runCli(argv, {
    cwd: work,
    env: { FLIGHTREC_PASSWORD: PASSWORD, FLIGHTREC_TOKEN: TOKEN, MY_PW: PASSWORD, ...env },
  });
  runs.push({ argv, run });
  expect(run.unexpected, `${argv.join(' ')}: ${run.err}`).toBe(false);
  return run;
}

beforeAll(async () => {
  basicSim = await startSimServer({ clock: 'manual', auth: { kind: 'basic', username: USER, password: PASSWORD } });
  bearerSim = await startSimServer({ clock: 'manual', auth: { kind: 'bearer', token: TOKEN } });
  proxy = await startFaultProxy(basicSim, [
    { name: 'echo', from: 0, until: 1e9, ops: ['GetIcebergStatus', 'GetShadowTopic'], mutate: echoAuthorization },
  ]);
  writeFileSync(join(secrets, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  writeFileSync(join(secrets, 'password-loose'), `${PASSWORD}\n`, { mode: 0o644 });
  chmodSync(join(secrets, 'password-loose'), 0o644);
  writeFileSync(
    join(work, 'ok.yaml'),
    `clusters:\n  - name: cfg\n    baseUrl: ${basicSim.baseUrl}\n    auth:\n      username: ${USER}\n      passwordEnv: MY_PW\n`,
  );
  writeFileSync(
    join(secrets, 'inline.yaml'),
    `clusters:\n  - name: bad\n    baseUrl: ${basicSim.baseUrl}\n    auth:\n      username: ${USER}\n      password: ${INLINE}\n`,
  );
}, 30_000);

afterAll(async () => {
  await proxy?.close();
  await basicSim?.close();
  await bearerSim?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('secrets never reach the database, logs, errors, info or exports', () => {
  it('records with basic auth (env), bearer auth (file), a wrong password and a server that echoes credentials', async () => {
    const link = ['--link', 'dr-primary:orders'];
    const echo = await cli([
      '--db',
      'basic.db',
      'collect',
      '--once',
      '--base-url',
      proxy.url,
      '--username',
      USER,
      ...link,
    ]);
    expect(echo.code, echo.err).toBe(3); // the echoing operations fail (permission_denied), the others are recorded
    expect(echo.err).toMatch(/permission_denied/);
    expect(
      (
        await cli([
          '--db',
          'bearer.db',
          'collect',
          '--once',
          '--base-url',
          bearerSim.baseUrl,
          '--token-file',
          join(secrets, 'token'),
          ...link,
        ])
      ).code,
    ).toBe(0);
    expect((await cli(['--db', 'cfg.db', '--config', 'ok.yaml', 'collect', '--once'])).code).toBe(0);
    const wrong = await cli(
      ['--db', 'wrong.db', 'collect', '--once', '--base-url', basicSim.baseUrl, '--username', USER],
      { FLIGHTREC_PASSWORD: WRONG },
    );
    expect(wrong.code).toBe(3);
    expect(wrong.err).toMatch(/unauthenticated/);
    const loose = await cli([
      '--db',
      'loose.db',
      'collect',
      '--once',
      '--base-url',
      basicSim.baseUrl,
      '--username',
      USER,
      '--password-file',
      join(secrets, 'password-loose'),
    ]);
    expect(loose.err).toMatch(/readable by group or others/);
  });

  it('misplaced secrets are refused without being repeated', async () => {
    const inline = await cli(['--db', 'x.db', '--config', join(secrets, 'inline.yaml'), 'collect', '--once']);
    expect(inline.code).toBe(2);
    const url = await cli(['--db', 'x.db', 'collect', '--once', '--base-url', `http://${USER}:${IN_URL}@127.0.0.1:9`]);
    expect(url.code).toBe(2);
    expect(url.err).toMatch(/credentials/);
    const missing = await cli([
      '--db',
      'x.db',
      'collect',
      '--once',
      '--base-url',
      basicSim.baseUrl,
      '--username',
      USER,
      '--password-file',
      join(secrets, 'nope'),
    ]);
    expect(missing.code).toBe(2);
  });

  it('the reading commands and exports run with the secrets in their environment', async () => {
    await cli(['info']);
    await cli(['-o', 'json', 'info']);
    for (const db of ['basic.db', 'bearer.db', 'wrong.db']) {
      await cli([
        '--db',
        db,
        '-o',
        'json',
        'query',
        'polls',
        '--since',
        '2000-01-01T00:00:00Z',
        '--until',
        '2100-01-01T00:00:00Z',
      ]);
      await cli([
        '--db',
        db,
        '-o',
        'wide',
        'query',
        'polls',
        '--since',
        '2000-01-01T00:00:00Z',
        '--until',
        '2100-01-01T00:00:00Z',
      ]);
      await cli(['--db', db, '-o', 'json', 'timeline']);
      await cli(['--db', db, 'db', 'stats']);
      expect((await cli(['--db', db, 'export', '--out', `${db}.export.json`])).code).toBe(0);
      expect((await cli(['--db', db, 'export', '--redact', '--out', `${db}.redacted.json`])).code).toBe(0);
    }
  });

  it('no secret in any output or any file produced (raw bodies decompressed)', () => {
    expect(runs.length).toBeGreaterThan(20);
    const leaks: string[] = [];
    for (const { argv, run } of runs) {
      for (const s of SECRETS)
        if (run.out.includes(s) || run.err.includes(s)) leaks.push(`output of ${argv.join(' ')}: ${s}`);
    }
    let scrubbed = 0;
    const files = readdirSync(work);
    expect(files.filter((f) => f.endsWith('.db')).length).toBeGreaterThanOrEqual(5);
    for (const f of files) {
      const bytes = readFileSync(join(work, f));
      for (const s of SECRETS) if (bytes.includes(Buffer.from(s))) leaks.push(`file ${f}: ${s}`);
      if (!f.endsWith('.db')) continue;
      const db = new Database(join(work, f), { readonly: true });
      try {
        const bodies = db.prepare('SELECT body FROM poll_raw').pluck().all() as Buffer[];
        for (const b of bodies) {
          const body = gunzipSync(b);
          if (body.includes('[redacted]')) scrubbed++;
          for (const s of SECRETS) if (body.includes(Buffer.from(s))) leaks.push(`raw body in ${f}: ${s}`);
        }
      } finally {
        db.close();
      }
    }
    expect(leaks).toEqual([]);
    expect(scrubbed, 'the echoed credentials were stored, scrubbed').toBeGreaterThan(0);
  });
});

describe('files are private', () => {
  it('databases (with their WAL and shared memory), exports and mappings are created 0600', () => {
    const mode = (p: string): string => (statSync(p).mode & 0o777).toString(8);
    for (const f of readdirSync(work).filter((n) => n.endsWith('.db') || n.endsWith('.json')))
      expect(mode(join(work, f)), f).toBe('600');
    const live = join(work, 'live.db');
    const db = openDatabase(live);
    const writer = createHistoryWriter(db);
    try {
      for (const p of [live, `${live}-wal`, `${live}-shm`]) {
        expect(existsSync(p), p).toBe(true);
        expect(mode(p), p).toBe('600');
      }
    } finally {
      writer.close();
    }
  });
});

describe('TLS: verification on unless explicitly disabled', () => {
  let server: LoopbackServer;
  let ca: string;
  beforeAll(async () => {
    const key = join(secrets, 'key.pem');
    ca = join(secrets, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        ca,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    server = await startLoopbackServer((_r, res) => answer(res, 200, '{}'), {
      tls: { key: readFileSync(key), cert: readFileSync(ca) },
    });
  }, 30_000);
  afterAll(() => server?.close());

  const tls = (...extra: string[]) =>
    cli(['--db', 'tls.db', 'collect', '--once', '--base-url', server.url, ...extra], { FLIGHTREC_PASSWORD: '' });

  it('refuses a certificate it cannot verify, and accepts it with its CA', async () => {
    const refused = await tls();
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/certificate/i);
    expect((await tls('--ca-file', ca)).code).toBe(0);
  });

  it('connects when verification is switched off explicitly', async () => {
    expect((await tls('--insecure-skip-verify')).code).toBe(0);
  });

  // `--insecure-skip-verify` (or tls.insecureSkipVerify, FLIGHTREC_INSECURE_SKIP_VERIFY) must
  // print a warning on every start (it used to switch verification off silently).
  it('warns on every start when verification is switched off', async () => {
    for (const run of [await tls('--insecure-skip-verify'), await tls('--insecure-skip-verify')]) {
      expect(run.err).toMatch(/warning:.*(verif|insecure)/i);
    }
    const viaEnv = await cli(['--db', 'tls.db', 'collect', '--once', '--base-url', server.url], {
      FLIGHTREC_INSECURE_SKIP_VERIFY: 'true',
    });
    expect(viaEnv.err).toMatch(/warning:.*(verif|insecure)/i);
  });
});
