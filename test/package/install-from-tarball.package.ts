/**
 * The package as users get it: `npm pack` of this checkout, `npm install -g --prefix DIR` of the
 * tarball (`flightrec-cli-VERSION.tgz`) into a temporary prefix, then the installed `flightrec`
 * from DIR/bin: its version, a one-minute recording of the simulated `quiet` scenario, queries of
 * it, `info`, the demo and the commands it suggests (run as printed, by a shell), and the timeline
 * worker of the browser, with nothing of this checkout (sources, dev dependencies) in reach.
 *
 * Slow (better-sqlite3 compiles from source at install: about 80 s on 2 cores), so it is not part
 * of `npm test`: run it with `npm run test:package` (.ci/run does, after `npm test`). Loopback
 * only: dependencies come from a registry on 127.0.0.1 serving the tarballs `npm ci` left in the
 * npm cache (test/package/loopback-registry.ts), and better-sqlite3 is told to build from source
 * instead of downloading a prebuilt binary.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackRegistry, type LoopbackRegistry } from './loopback-registry.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** What `npm pack --json` reports of one package. */
interface PackReport {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly { readonly path: string; readonly size: number }[];
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** The environment without npm's per-run variables (`npm run` sets npm_config_*, npm_package_*, ...) or flightrec's. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(npm_|FLIGHTREC_)/i.test(k) || k === 'INIT_CWD') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** Runs a command without blocking the event loop (the loopback registry answers from this process). */
function run(
  command: string,
  args: readonly string[],
  opts: { cwd: string; env: Record<string, string> },
): Promise<Ran> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', fail);
    child.once('close', (code) => done({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

/** The package name of a bare import specifier (`drizzle-orm/better-sqlite3` -> `drizzle-orm`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The optional peer dependencies declared by the runtime packages of package-lock.json. */
function optionalPeers(): Set<string> {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; peerDependenciesMeta?: Record<string, { optional?: boolean }> }>;
  };
  const names = new Set<string>();
  for (const entry of Object.values(lock.packages)) {
    if (entry.dev === true) continue;
    for (const [name, meta] of Object.entries(entry.peerDependenciesMeta ?? {}))
      if (meta.optional === true) names.add(name);
  }
  return names;
}

/** Every .js file under `dir`. */
function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsFiles(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  );
}

const work = mkdtempSync(join(tmpdir(), 'flightrec-package-'));
const prefix = join(work, 'prefix');
const installed = join(prefix, 'lib', 'node_modules', PKG.name);
const bin = join(prefix, 'bin', 'flightrec');
const db = join(work, 'quiet.db');
let pack: PackReport;
let install: Ran;
let registry: LoopbackRegistry | undefined;
const timings: string[] = [];

/** Runs the installed flightrec from the temporary prefix, in the work directory. */
function flightrec(...args: string[]): Ran {
  const started = Date.now();
  const r = spawnSync(bin, args, {
    cwd: work,
    env: cleanEnv({ PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}` }),
    encoding: 'utf8',
  });
  return {
    code: r.status,
    stdout: r.stdout ?? '',
    stderr: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}`,
    ms: Date.now() - started,
  };
}

describe('the packed flightrec, installed with npm install -g --prefix', () => {
  beforeAll(async () => {
    // pack: runs prepack (the build) in this checkout and writes the tarball into `work`
    const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, env: cleanEnv({}) });
    if (packed.code !== 0) throw new Error(`npm pack failed (${packed.code}):\n${packed.stderr}`);
    // prepack's build output precedes the JSON on stdout
    pack = (JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[\n'))) as PackReport[])[0]!;
    timings.push(`npm pack ${(packed.ms / 1000).toFixed(1)} s`);

    const npmCache = (await run('npm', ['config', 'get', 'cache'], { cwd: work, env: cleanEnv({}) })).stdout.trim();
    registry = await startLoopbackRegistry(join(ROOT, 'package-lock.json'), npmCache);
    const env: Record<string, string> = {
      npm_config_registry: registry.url,
      // a cache of its own: nothing of the loopback registry lands in the user's npm cache
      npm_config_cache: join(work, 'npm-cache'),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_noproxy: '127.0.0.1',
      // better-sqlite3's prebuild-install: no download of a prebuilt binary from GitHub, compile
      // instead (its own rc variable: npm 11 warns about an unknown npm_config_build_from_source)
      'prebuild-install_buildFromSource': 'true',
    };
    // node-gyp: the headers of the running Node (else it downloads them)
    const headers = resolve(dirname(process.execPath), '..');
    if (existsSync(join(headers, 'include', 'node', 'node.h'))) env['npm_config_nodedir'] = headers;
    install = await run(
      'npm',
      ['install', '-g', '--allow-scripts=better-sqlite3', '--prefix', prefix, join(work, pack.filename)],
      { cwd: work, env: cleanEnv(env) },
    );
    timings.push(`npm install -g ${(install.ms / 1000).toFixed(1)} s`);
    if (install.code !== 0) {
      throw new Error(
        `npm install -g failed (${install.code}); unknown packages asked for: ${registry.unknown.join(', ') || 'none'}\n${install.stderr}`,
      );
    }
  }, 900_000);

  afterAll(async () => {
    await registry?.close();
    process.stderr.write(
      `\npackage test: ${timings.join(', ')}; tarball ${pack?.size ?? '?'} bytes, ${pack?.files.length ?? '?'} files\n`,
    );
    if (install?.stderr) process.stderr.write(`npm install -g said:\n${install.stderr}\n`);
    rmSync(work, { recursive: true, force: true });
  });

  it('is the package flightrec-cli, public, with the command flightrec', () => {
    expect(pack.filename).toBe(`flightrec-cli-${PKG.version}.tgz`);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      name: string;
      private?: boolean;
      bin: Record<string, string>;
    };
    expect(manifest.name).toBe('flightrec-cli');
    expect(manifest.private).toBeUndefined();
    expect(Object.keys(manifest.bin)).toEqual(['flightrec']);
  });

  it('packs the built command, migrations, docs, README, LICENSE and CHANGELOG, and no sources, tests, benches or source maps, under 2 MB', () => {
    const paths = pack.files.map((f) => f.path);
    for (const needed of [
      'bin/flightrec.js',
      // makes bin/flightrec.js a CommonJS module
      'bin/package.json',
      'dist/cli.js',
      // every command but browse and demo, and its V8 code cache (src/cli/start.ts)
      'dist/start.cjs',
      'dist/cli.cjs',
      'dist/cli.cjs.cache',
      // drizzle-orm for dist/cli.cjs, loaded by a writer on first use (scripts/bundle-options.mjs)
      'dist/drizzle.cjs',
      // what bin/flightrec.js loads for --version alone
      'dist/version.cjs',
      'dist/timeline-worker.js',
      'dist/rollup-worker.js',
      'dist/pg-worker.js',
      'dist/store-worker.js',
      'drizzle/meta/_journal.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'docs/cli.md',
      'package.json',
    ]) {
      expect(paths, needed).toContain(needed);
    }
    expect(paths.some((p) => p.startsWith('dist/chunks/'))).toBe(true);
    expect(
      paths.filter(
        (p) => /^(src|test|bench|scripts|node_modules)\//.test(p) || p.endsWith('.map') || p.endsWith('.ts'),
      ),
    ).toEqual([]);
    // about 0.9 MB, and 0.8 MB more since the CommonJS bundle and its code cache (430 and 400 KB
    // packed) start every read command a quarter faster (docs/performance.md, fourth pass)
    expect(pack.size).toBeLessThan(2_000_000);
  });

  it('installs only runtime dependencies, all of them from the loopback registry', () => {
    // npm looks up optional peers (drizzle-orm's drivers, ws's add-ons) and goes on without them
    expect(registry!.unknown.filter((name) => !optionalPeers().has(name))).toEqual([]);
    expect(registry!.tarballsServed()).toBeGreaterThan(0);
    expect(existsSync(bin)).toBe(true);
    const deps = readdirSync(join(installed, 'node_modules'));
    for (const dev of ['tsx', 'esbuild', 'typescript', 'vitest', 'drizzle-kit']) expect(deps).not.toContain(dev);
  });

  it('ships its JavaScript in ASCII only (Node reads a file with any other character as UTF-16, the slow path)', () => {
    const files = [
      ...jsFiles(join(installed, 'dist')),
      join(installed, 'dist', 'cli.cjs'),
      join(installed, 'dist', 'start.cjs'),
      join(installed, 'dist', 'drizzle.cjs'),
    ];
    const notAscii = files.filter((f) => !/^\p{ASCII}*$/u.test(readFileSync(f, 'utf8')));
    expect(notAscii).toEqual([]);
  });

  it('imports nothing at run time but Node built-ins, its own files and its declared dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    // an optional peer (PGlite, loaded only for a pglite:// target) is declared, not installed
    const optionalPeersOfOurs = Object.entries(manifest.peerDependenciesMeta ?? {})
      .filter(([, meta]) => meta.optional === true)
      .map(([name]) => name);
    const allowed = new Set([...Object.keys(manifest.dependencies), ...optionalPeersOfOurs, ...builtinModules]);
    // `ws`, bundled into the TUI's devtools chunk, requires these optional add-ons inside try/catch
    const optional = new Set(['bufferutil', 'utf-8-validate']);
    const problems: string[] = [];
    for (const file of jsFiles(join(installed, 'dist'))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(
        /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"'\s,()[\]{}]+)["']/g,
      )) {
        // a specifier has no spaces, commas or brackets: `'--from', r.from], ['` in bundled code is not an import
        const spec = m[1]!;
        if (spec.startsWith('.')) {
          if (!existsSync(resolve(dirname(file), spec))) problems.push(`${file}: ${spec} (missing file)`);
        } else if (!spec.startsWith('node:') && !allowed.has(packageOf(spec)) && !optional.has(spec)) {
          problems.push(`${file}: ${spec}`);
        }
      }
    }
    expect(problems).toEqual([]);
    // the browser finds its worker next to dist/cli.js, one directory up from the chunks
    const chunks = jsFiles(join(installed, 'dist', 'chunks')).map((f) => readFileSync(f, 'utf8'));
    expect(chunks.some((t) => t.includes('../timeline-worker.js'))).toBe(true);
  });

  it('ships a code cache that V8 takes for the bundle it ships (src/cli/code-cache.ts)', () => {
    const start = join(installed, 'dist', 'start.cjs');
    const bundle = join(installed, 'dist', 'cli.cjs');
    const code = `process.stdout.write(require(${JSON.stringify(start)}).compileBundle(${JSON.stringify(bundle)}, ${JSON.stringify(`${bundle}.cache`)}).cache)`;
    const r = spawnSync(process.execPath, ['-e', code], { cwd: work, env: cleanEnv({}), encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('used');
  });

  it('prints the package version with --version', () => {
    const r = flightrec('--version');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${PKG.version}\n`);
    expect(r.code).toBe(0);
  });

  it('says in info that it is a global install, and where', () => {
    const r = flightrec('-o', 'json', 'info');
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse(r.stdout) as Record<string, string>;
    expect(info['flightrec']).toBe(PKG.version);
    expect(info['installed']).toBe(`global (npm install -g, prefix ${realpathSync(prefix)})`);
    expect(info['package']).toBe(realpathSync(installed));
    expect(info['better-sqlite3']).toMatch(/^12\./);
  });

  it('records one simulated minute of the quiet scenario and queries it', () => {
    const rec = flightrec('--db', db, 'collect', '--simulate', 'quiet', '--for', '1m');
    timings.push(`collect --simulate quiet --for 1m ${(rec.ms / 1000).toFixed(1)} s`);
    expect(rec.code, rec.stderr).toBe(0);

    const conns = flightrec('--db', db, 'query', 'connections', '-o', 'json');
    expect(conns.code, conns.stderr).toBe(0);
    const state = JSON.parse(conns.stdout) as { observedAt: string; total: number; failuresSince: number };
    expect(state.observedAt).toBe('2026-01-01T00:01:00.000000000Z');
    expect(state.total).toBeGreaterThan(100);
    expect(state.failuresSince).toBe(0);

    const polls = flightrec(
      '--db',
      db,
      'query',
      'polls',
      '--since',
      '2026-01-01T00:00:00Z',
      '--until',
      '2026-01-01T00:01:00Z',
      '-o',
      'json',
    );
    expect(polls.code, polls.stderr).toBe(0);
    const rows = (JSON.parse(polls.stdout) as { rows: { operation: string; outcome: string }[] }).rows;
    expect(new Set(rows.map((p) => p.operation))).toEqual(
      new Set([
        'ListKafkaConnections',
        'GetShadowLink',
        'ListShadowTopics',
        'GetShadowTopic',
        'GetUpgradeStatus',
        'GetIcebergStatus',
      ]),
    );
    expect(rows.filter((p) => p.outcome !== 'ok')).toEqual([]);

    const timeline = flightrec('--db', db, 'timeline', '-o', 'json');
    expect(timeline.code, timeline.stderr).toBe(0);
  });

  it('suggests after the demo commands that run as printed: plain flightrec, never npx', () => {
    const demo = flightrec('demo', '--no-interactive');
    timings.push(`demo ${(demo.ms / 1000).toFixed(1)} s`);
    expect(demo.code, demo.stderr).toBe(0);
    const block = demo.stdout.slice(demo.stdout.lastIndexOf('What to try next:')).trimEnd().split('\n').slice(1);
    expect(block.length).toBeGreaterThanOrEqual(3);
    for (const line of block) {
      expect(line).toMatch(/^ {2}flightrec --db flightrec-demo\.db [a-z]/);
      // run by a shell as a user would paste it, with the PATH of the install
      const r = spawnSync('sh', ['-c', line.trim()], {
        cwd: work,
        env: cleanEnv({ PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}`, NO_COLOR: '1' }),
        encoding: 'utf8',
      });
      if (line.includes(' browse')) {
        // the browser needs a terminal: it got this far (our flightrec, valid arguments) and said so
        expect(r.stderr, line).toMatch(/^flightrec: browse needs a terminal/);
        expect(r.status, line).toBe(2);
      } else {
        expect(r.status, `${line}\n${r.stderr}`).toBe(0);
        expect(r.stdout.length, line).toBeGreaterThan(0);
      }
    }
  });

  it("computes the timeline in the browser's worker thread, loaded from the installed package", async () => {
    const script = [
      "import { Worker } from 'node:worker_threads';",
      // execArgv: [] keeps --input-type out of the worker
      'const w = new Worker(new URL(process.argv[1]), { execArgv: [] });',
      // the job is a request of the thread's channel (src/threads/channel.ts): an id and the job
      'w.postMessage({ id: 1, job: { database: process.argv[2] } });',
      "w.once('message', (m) => { process.stdout.write(JSON.stringify(m.ok ? { ok: true, polls: m.timeline.polls } : m)); w.terminate(); });",
      "w.once('error', (e) => { process.stdout.write(JSON.stringify({ ok: false, message: String(e) })); });",
    ].join('\n');
    const workerUrl = new URL(`file://${join(installed, 'dist', 'timeline-worker.js')}`).href;
    const r = await run(process.execPath, ['--input-type=module', '-e', script, workerUrl, db], {
      cwd: work,
      env: cleanEnv({}),
    });
    expect(r.stderr).toBe('');
    const answer = JSON.parse(r.stdout) as { ok: boolean; polls?: { total: number; failed: number }; message?: string };
    expect(answer).toMatchObject({ ok: true, polls: { failed: 0 } });
    expect(answer.polls!.total).toBeGreaterThan(0);
  });
});
