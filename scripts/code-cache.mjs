// Makes dist/cli.cjs.cache, the V8 code cache of the command line's CommonJS bundle
// (src/cli/code-cache.ts): a small recording of the simulated cluster is made in a private
// temporary directory, then one fresh Node process (its V8 flags the defaults, as a user's
// `flightrec` has them) loads dist/cli.cjs, runs the read commands whose start users wait for
// (as-of queries in JSON and as a table, one that matches nothing, one connection's history) and
// writes the code V8 compiled for them. Run as a script, this file is that process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The recording the cache is trained on: the incident scenario, 20 connections, 3 minutes. */
const RECORD = ['collect', '--simulate', 'incident', '--for', '3m', '--connections', '20', '--timeout', '2s'];
const START = '2026-01-01T00:00:00.000000000Z';
const AT = '2026-01-01T00:03:00.000000000Z';

/** The command lines run before the cache is written (each given `--db <recording>` first). */
function trainingCommands(uid) {
  return [
    ['query', 'connections', '--at', AT, '--filter', 'node_id = 999', '-o', 'json'],
    ['query', 'connections', '--at', AT, '--filter', 'node_id = 1', '-o', 'json'],
    ['query', 'connections', '--at', AT, '--filter', 'node_id = 1'],
    ['query', 'connections', '--since', START, '--until', AT, '--filter', `uid = "${uid}"`, '-o', 'json'],
  ];
}

/** Runs `node args` with the default V8 flags; throws with its stderr when it fails. */
function node(args) {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${(r.stderr ?? '').slice(-2000)}`);
  return r.stdout;
}

/** Writes `<dist>/cli.cjs.cache` for `<dist>/cli.cjs`. */
export function makeCodeCache(dist) {
  const dir = mkdtempSync(join(tmpdir(), 'flightrec-code-cache-'));
  try {
    const db = join(dir, 'train.db');
    node([join(dist, '..', 'bin', 'flightrec.js'), '--db', db, ...RECORD]);
    node([fileURLToPath(import.meta.url), dist, db]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The training process: loads the bundle, runs the commands, writes the cache beside the bundle. */
async function train(dist, db) {
  const { compileBundle, cacheFileBytes } = createRequire(import.meta.url)(join(dist, 'start.cjs'));
  const bundle = join(dist, 'cli.cjs');
  const compiled = compileBundle(bundle, undefined);
  const { main } = compiled.run();
  const run = async (argv) => {
    let out = '';
    let err = '';
    const io = {
      // text, or UTF-8 bytes in chunks of whole characters (src/cli/context.ts TextSink)
      stdout: { write: (s) => (out += typeof s === 'string' ? s : Buffer.from(s).toString('utf8')) },
      stderr: { write: (s) => (err += typeof s === 'string' ? s : Buffer.from(s).toString('utf8')) },
      env: {},
      cwd: process.cwd(),
      now: Date.now,
      signal: new globalThis.AbortController().signal,
    };
    const code = await main(['--db', db, ...argv], io);
    if (code !== 0) throw new Error(`flightrec ${argv.join(' ')} exited ${code}: ${err}`);
    return out;
  };
  const rows = JSON.parse(await run(['query', 'connections', '--at', AT, '-o', 'json'])).rows;
  if (rows.length === 0) throw new Error('the training recording holds no connection');
  for (const argv of trainingCommands(rows[0].uid)) await run(argv);
  const tmp = `${bundle}.cache.${process.pid}`;
  writeFileSync(tmp, cacheFileBytes(compiled.buildId, compiled.script.createCachedData()));
  renameSync(tmp, `${bundle}.cache`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await train(process.argv[2], process.argv[3]);
