import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Module, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import {
  bitwiseCrc32,
  buildIdOf,
  cacheFileBytes,
  cachePayload,
  compileBundle,
  MODULE_WRAPPER_HEAD,
  MODULE_WRAPPER_TAIL,
  sourceText,
} from '../../src/cli/code-cache.ts';
import { main } from '../../src/cli/main.ts';
import { openDatabase } from '../../src/db/index.ts';
import { buildFor } from '../../src/cli/start.ts';
import { memoryIo } from '../helpers/memory-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-code-cache-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a CommonJS bundle of `body` stamped with its build id (as scripts/build.mjs does); returns its path. */
function bundle(name: string, body: string): string {
  const file = join(dir, name);
  const id = createHash('sha256').update(body).digest('hex');
  writeFileSync(file, `${body}//# flightrec-build-id=${id}\n`);
  return file;
}

/** Compiles `file`, runs it, and writes the cache it made beside it; returns the cache's path. */
function train(file: string): string {
  const compiled = compileBundle(file, undefined);
  (compiled.run().answer as () => number)();
  writeFileSync(`${file}.cache`, cacheFileBytes(compiled.buildId!, compiled.script.createCachedData()));
  return `${file}.cache`;
}

/** Trains a cache for `file`, compiles with it, and expects it used and the bundle run as a CommonJS module. */
function expectCachedRun(file: string): void {
  const compiled = compileBundle(file, train(file));
  expect(compiled.cache).toBe('used');
  const exports = compiled.run();
  expect((exports.answer as () => number)()).toBe(42);
  expect(exports.dir).toBe(dir);
  expect(exports.strict).toBe(true);
}

const BODY =
  "'use strict';\nfunction answer() { return [1, 2, 3].map((n) => n * 14).reduce((a, b) => a + b) / 2; }\nmodule.exports = { answer, dir: __dirname, strict: (function () { return this; })() === undefined };\n";

describe('the code cache of the CommonJS bundle (src/cli/code-cache.ts)', () => {
  it('uses a cache made for the bundle, and the bundle runs as a CommonJS module', () => {
    const file = bundle('good.cjs', BODY);
    expectCachedRun(file);
  });

  it("compiles a bundle written inside Node's module wrapper as it is, with its cache", () => {
    expect([MODULE_WRAPPER_HEAD, MODULE_WRAPPER_TAIL]).toEqual((Module as unknown as { wrapper: string[] }).wrapper);
    const file = bundle('wrapped.cjs', `${MODULE_WRAPPER_HEAD}${BODY}${MODULE_WRAPPER_TAIL}\n`);
    expectCachedRun(file);
  });

  it('compiles from the source when the cache is missing', () => {
    const file = bundle('missing.cjs', BODY);
    const compiled = compileBundle(file, `${file}.cache`);
    expect(compiled.cache).toBe('absent');
    expect((compiled.run().answer as () => number)()).toBe(42);
  });

  it('ignores a damaged payload instead of handing it to V8 (which does not check it and may crash)', () => {
    const file = bundle('damaged.cjs', BODY);
    const cache = train(file);
    const bytes = readFileSync(cache);
    for (let i = 100; i < bytes.length; i += 97) bytes[i]! ^= 0x5a;
    writeFileSync(cache, bytes);
    const compiled = compileBundle(file, cache);
    expect(compiled.cache).toBe('unusable');
    expect((compiled.run().answer as () => number)()).toBe(42);
  });

  it('ignores a cache made for another build of the bundle, and a truncated or foreign file', () => {
    const old = bundle('old.cjs', BODY);
    const cache = train(old);
    const file = bundle('new.cjs', BODY.replace('* 14', '* 7 * 2'));
    writeFileSync(`${file}.cache`, readFileSync(cache));
    expect(compileBundle(file, `${file}.cache`).cache).toBe('unusable');
    const id = buildIdOf(readFileSync(file, 'utf8'));
    expect(cachePayload(readFileSync(cache).subarray(0, 40), id)).toBeUndefined();
    expect(
      cachePayload(Buffer.from('not a cache at all, but long enough to hold a header of eighty bytes or more'), id),
    ).toBeUndefined();
    expect(cachePayload(readFileSync(cache), undefined)).toBeUndefined();
  });

  it('checks the payload by its CRC-32, or by its SHA-256 on a Node without zlib.crc32', () => {
    const file = bundle('checked.cjs', BODY);
    const bytes = readFileSync(train(file));
    const id = buildIdOf(readFileSync(file, 'utf8'));
    const payload = bytes.subarray(84);
    expect(cachePayload(bytes, id)).toEqual(payload);
    expect(cachePayload(bytes, id, null)).toEqual(payload);
    const crcOnly = Buffer.from(bytes);
    crcOnly.fill(0, 48, 80); // the SHA-256 gone: only a Node without crc32 notices
    expect(cachePayload(crcOnly, id, crc32)).toEqual(payload);
    expect(cachePayload(crcOnly, id, null)).toBeUndefined();
    const shaOnly = Buffer.from(bytes);
    shaOnly.fill(0, 80, 84);
    expect(cachePayload(shaOnly, id, crc32)).toBeUndefined();
    expect(cachePayload(shaOnly, id, null)).toEqual(payload);
    // a cache made on a Node without zlib.crc32 holds the same CRC-32
    expect(cacheFileBytes(id!, payload, null)).toEqual(bytes);
    expect(bitwiseCrc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    const damaged = Buffer.from(bytes);
    damaged[damaged.length - 1]! ^= 1;
    expect(cachePayload(damaged, id, crc32)).toBeUndefined();
    expect(cachePayload(damaged, id, null)).toBeUndefined();
  });

  it("reads a cache larger than its bundle, and one that fits in the bundle's bytes", () => {
    const small = bundle('small.cjs', BODY);
    expect(readFileSync(train(small)).length).toBeGreaterThan(readFileSync(small).length);
    expect(compileBundle(small, `${small}.cache`).cache).toBe('used');
    const large = bundle('large.cjs', `${BODY}// ${'padding '.repeat(20000)}\n`);
    expect(readFileSync(train(large)).length).toBeLessThan(readFileSync(large).length);
    const compiled = compileBundle(large, `${large}.cache`);
    expect(compiled.cache).toBe('used');
    expect((compiled.run().answer as () => number)()).toBe(42);
  });

  it('lets V8 refuse a whole cache made from other source text under the same build id', () => {
    const file = bundle('refused.cjs', BODY);
    const other = bundle('other.cjs', `${BODY}// a longer source\n`);
    const compiled = compileBundle(other, undefined);
    compiled.run();
    const id = buildIdOf(readFileSync(file, 'utf8'))!;
    writeFileSync(`${file}.cache`, cacheFileBytes(id, compiled.script.createCachedData()));
    const again = compileBundle(file, `${file}.cache`);
    expect(again.cache).toBe('refused');
    expect((again.run().answer as () => number)()).toBe(42);
  });

  it('reads ASCII source byte for byte and anything else as UTF-8', () => {
    const ascii = "const s = '\\u00b5s'; // 1 \\u2192 2\n";
    expect(sourceText(Buffer.from(ascii, 'utf8'))).toBe(ascii);
    const utf8 = "const s = '\u00b5s \u2192 \u{1f600}';\n";
    expect(sourceText(Buffer.from(utf8, 'utf8'))).toBe(utf8);
    expect(sourceText(Buffer.alloc(0))).toBe('');
  });

  it('runs a bundle whose source holds non-ASCII text as UTF-8', () => {
    const file = bundle('utf8.cjs', "'use strict';\nmodule.exports = { text: '\u00b5s \u2192' };\n");
    expect(compileBundle(file, undefined).run().text).toBe('\u00b5s \u2192');
  });

  it('reads the build id only from the last line', () => {
    expect(buildIdOf(`x\n//# flightrec-build-id=${'a'.repeat(64)}\n`)).toEqual(Buffer.alloc(32, 0xaa));
    expect(buildIdOf(`//# flightrec-build-id=${'a'.repeat(64)}\nmore();\n`)).toBeUndefined();
    expect(buildIdOf('module.exports = 1;\n')).toBeUndefined();
  });
});

describe("the bundle's bindings for better-sqlite3 (scripts/sqlite-addon.cjs)", () => {
  it('loads the addon from build/Release without a failed require on the way', () => {
    const addon = fileURLToPath(new URL('../../scripts/sqlite-addon.cjs', import.meta.url));
    const code = [
      "const Module = require('node:module');",
      'const resolve = Module._resolveFilename;',
      'let failed = 0;',
      'Module._resolveFilename = function (...args) { try { return resolve.apply(this, args); } catch (e) { failed++; throw e; } };',
      `const addon = require(${JSON.stringify(addon)})('better_sqlite3.node');`,
      'process.stdout.write(JSON.stringify({ failed, database: typeof addon.Database }));',
    ].join('\n');
    const child = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ failed: 0, database: 'function' });
  });
});

describe('which build starts a command (src/cli/start.ts)', () => {
  it('runs the terminal browser, and the demo that ends in it, from the ES module build', () => {
    expect(buildFor(['browse'])).toBe('esm');
    expect(buildFor(['--db', 'x.db', 'browse', '--view', 'timeline'])).toBe('esm');
    expect(buildFor(['demo', '--speed', '10'])).toBe('esm');
    // wherever the word stands: an option commandWord does not know to take a value
    expect(buildFor(['--db-password-file', 'pw', 'browse'])).toBe('esm');
  });

  it('runs every other command from the CommonJS bundle', () => {
    expect(buildFor(['query', 'connections', '--at', '2026-01-01T00:00:00Z'])).toBe('cjs');
    expect(buildFor(['--help'])).toBe('cjs');
    expect(buildFor([])).toBe('cjs');
    expect(buildFor(['collect', '--simulate', 'incident'])).toBe('cjs');
  });
});

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));

describe.runIf(existsSync(join(dist, 'cli.cjs')))('the built bundle (npm run build)', () => {
  it('has a cache V8 takes, strict mode, and no terminal browser', () => {
    const file = join(dist, 'cli.cjs');
    const source = readFileSync(file, 'utf8');
    // written inside Node's module wrapper, strict mode its body's first statement
    expect(source.startsWith(`${MODULE_WRAPPER_HEAD}'use strict';\n`)).toBe(true);
    expect(buildIdOf(source)).toBeDefined();
    expect(source).not.toMatch(/require\("ink"\)/);
    expect(compileBundle(file, `${file}.cache`).cache).toBe('used');
  });

  it('requires only packages Node 20 can load with require (an ES-module-only one would fail at run time)', () => {
    const file = join(dist, 'cli.cjs');
    const load = createRequire(file);
    const names = new Set([...readFileSync(file, 'utf8').matchAll(/\brequire\("([^".][^"]*)"\)/g)].map((m) => m[1]!));
    expect(names.size).toBeGreaterThan(3);
    for (const name of names) expect(() => load(name), name).not.toThrow();
  });

  /** Runs bin/flightrec.js with `args`; what its main thread loaded (Node's modules, files), and whether it read stdin. */
  function loadedBy(args: readonly string[]): {
    status: number | null;
    stderr: string;
    native: Set<string>;
    files: string[];
    stdin: boolean;
  } {
    const bin = fileURLToPath(new URL('../../bin/flightrec.js', import.meta.url));
    const probe = join(dir, 'loaded.cjs');
    writeFileSync(
      probe,
      [
        "const stdin = Object.getOwnPropertyDescriptor(process, 'stdin');",
        'let read = false;',
        "Object.defineProperty(process, 'stdin', { ...stdin, get() { read = true; return stdin.get.call(this); } });",
        "process.on('exit', () => process.stderr.write(`LOADED ${process.moduleLoadList.join(',')}\\nSTDIN ${read}\\nFILES ${Object.keys(require.cache).join(',')}\\n`));",
        '',
      ].join('\n'),
    );
    const child = spawnSync(process.execPath, ['-r', probe, bin, ...args], { encoding: 'utf8', env: { PATH: '' } });
    return {
      status: child.status,
      stderr: child.stderr,
      native: new Set(/LOADED (.*)/.exec(child.stderr)![1]!.split(',')),
      files: /FILES (.*)/.exec(child.stderr)![1]!.split(','),
      stdin: /STDIN true/.test(child.stderr),
    };
  }

  it('starts a read without node:crypto, child_process or worker_threads, nor process.stdin (built when first used), nor drizzle-orm', () => {
    const run = loadedBy(['--db', join(dir, 'none.db'), 'filter', 'check', 'node_id = 1']);
    expect(run.status).toBe(0);
    expect(run.native.has('NativeModule vm')).toBe(true);
    expect(run.stdin).toBe(false);
    for (const name of ['crypto', 'child_process', 'worker_threads']) {
      expect(run.native.has(`NativeModule ${name}`), name).toBe(false);
    }
    // drizzle-orm is a writer's (dist/drizzle.cjs, loaded on first use: scripts/bundle-options.mjs)
    expect(run.files.filter((f) => f.includes('drizzle'))).toEqual([]);
  });

  it("checks a store without the collector's packages (undici, node-cron) or a config file's (yaml, zod)", () => {
    const file = join(dir, 'check.db');
    openDatabase(file).close();
    const run = loadedBy(['--db', file, 'db', 'check']);
    expect([run.status, run.stderr]).toEqual([0, expect.stringContaining('LOADED ')]);
    const packages = run.files.flatMap((f) => /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(f)?.[1] ?? []);
    expect(packages).toContain('better-sqlite3');
    for (const name of ['undici', 'node-cron', 'yaml', 'zod']) expect(packages, name).not.toContain(name);
    // Node's own fetch (its bundled undici) neither
    expect([...run.native].filter((m) => m.includes('undici'))).toEqual([]);
  });

  it('answers through bin/flightrec.js as the command line does in-process, errors included', async () => {
    const bin = fileURLToPath(new URL('../../bin/flightrec.js', import.meta.url));
    for (const expr of ['node_id = 1 AND state = KAFKA_CONNECTION_STATE_OPEN', 'node_id = = 1']) {
      const child = spawnSync(process.execPath, [bin, 'filter', 'check', expr], {
        encoding: 'utf8',
        env: { PATH: '' },
      });
      const io = memoryIo();
      const code = await main(['filter', 'check', expr], io);
      expect([child.status, child.stdout, child.stderr]).toEqual([code, io.out(), io.err()]);
    }
  });
});
