/**
 * Loading the command line's CommonJS bundle (dist/cli.cjs) with V8's code cache made for it at
 * build time (dist/cli.cjs.cache, scripts/code-cache.mjs): V8 then deserialises the compiled
 * functions instead of parsing and compiling about 2 MB of JavaScript at every start (Node 20 has
 * no module compile cache of its own; ES modules cannot be given cached data at all).
 *
 * The cache is code: V8 runs what it holds. It is trusted as the bundle beside it is, never
 * written at run time, and only read from the bundle's own directory (an installed package's
 * dist/, same owner as the code; no shared temporary directory). V8 checks its version, its
 * flags and the source's length, but not the bytes of the payload (a corrupt payload crashed
 * Node 20 with a segmentation fault), so the file carries its own header: a magic, the build id
 * of the bundle it was made for (the bundle's last line) and the SHA-256 of the payload. A cache
 * that is missing, unreadable, for another bundle, damaged or refused by V8 (another Node) is
 * ignored: the bundle is compiled from its source, as it would be without a cache.
 */
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Module, createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** The first bytes of a cache file (format version 1). */
const MAGIC = Buffer.from('flightrec-v8cc-1', 'latin1');
/** Bytes of the header: the magic, the bundle's build id (32 bytes), the payload's SHA-256 (32). */
const HEADER = MAGIC.length + 64;
/** The bundle's last line names its build id: the SHA-256 of everything before that line, in hex. */
const BUILD_ID = /\n\/\/# flightrec-build-id=([0-9a-f]{64})\n?$/;

/** A bundle compiled, with what became of its cache. */
export interface CompiledBundle {
  /** the compiled module wrapper (`createCachedData()` after a run makes a cache) */
  readonly script: Script;
  /** the bundle's build id, from its last line (undefined when it has none) */
  readonly buildId: Buffer | undefined;
  /** what became of the cache: used, none offered (and why), or refused by V8 */
  readonly cache: 'used' | 'absent' | 'unusable' | 'refused';
  /** runs the module body once and returns its exports */
  readonly run: () => Record<string, unknown>;
}

/** The build id named on the last line of `source`, if it has one. */
export function buildIdOf(source: string): Buffer | undefined {
  const m = BUILD_ID.exec(source.slice(-100));
  return m === null ? undefined : Buffer.from(m[1]!, 'hex');
}

/** The cache file's bytes for `payload` (V8's cached data) made from the bundle of `buildId`. */
export function cacheFileBytes(buildId: Buffer, payload: Buffer): Buffer {
  return Buffer.concat([MAGIC, buildId, createHash('sha256').update(payload).digest(), payload]);
}

/** The V8 payload of a cache file, when its header says it is whole and made for `buildId`. */
export function cachePayload(file: Buffer, buildId: Buffer | undefined): Buffer | undefined {
  if (buildId === undefined || file.length <= HEADER) return undefined;
  if (!file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  if (!file.subarray(MAGIC.length, MAGIC.length + 32).equals(buildId)) return undefined;
  const payload = file.subarray(HEADER);
  const digest = createHash('sha256').update(payload).digest();
  return digest.equals(file.subarray(MAGIC.length + 32, HEADER)) ? payload : undefined;
}

/**
 * The text of a source file's bytes: ASCII (the build writes the bundle so: scripts/ascii-only.mjs)
 * is copied byte for byte into a one-byte string, which UTF-8 decoding gives too, only slower;
 * anything else is decoded as UTF-8.
 */
export function sourceText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** Reads a file, or undefined when it cannot be read. */
function readOrUndefined(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Compiles the CommonJS bundle `file` as Node's own loader would (the same module wrapper), with
 * the cache `cacheFile` when it is usable; `cacheFile` undefined compiles without one.
 */
export function compileBundle(file: string, cacheFile: string | undefined): CompiledBundle {
  const source = sourceText(readFileSync(file));
  const buildId = buildIdOf(source);
  const bytes = cacheFile === undefined ? undefined : readOrUndefined(cacheFile);
  const cachedData = bytes === undefined ? undefined : cachePayload(bytes, buildId);
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  const cache =
    bytes === undefined
      ? 'absent'
      : cachedData === undefined
        ? 'unusable'
        : script.cachedDataRejected
          ? 'refused'
          : 'used';
  const run = (): Record<string, unknown> => {
    const exports: Record<string, unknown> = {};
    const module = { exports, filename: file, id: file, loaded: false };
    const body = script.runInThisContext() as (...args: unknown[]) => void;
    body.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
    module.loaded = true;
    return module.exports;
  };
  return { script, buildId, cache, run };
}
