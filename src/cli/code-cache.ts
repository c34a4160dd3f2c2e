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
 * of the bundle it was made for (the bundle's last line), the SHA-256 and the CRC-32 of the
 * payload. The CRC-32 is what a start checks (zlib's, Node 20.15 and later): node:crypto, which
 * the SHA-256 needs, costs a read's start about 5 ms of CPU to load, and the check is against
 * damage, not against an attacker (who could as well change the bundle); a Node without
 * zlib.crc32 checks the SHA-256. A cache that is missing, unreadable, for another bundle, damaged
 * or refused by V8 (another Node) is ignored: the bundle is compiled from its source, as it would
 * be without a cache.
 */
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { Module, createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import * as zlib from 'node:zlib';

/** The first bytes of a cache file (format version 2). */
const MAGIC = Buffer.from('flightrec-v8cc-2', 'latin1');
/** Where the payload's SHA-256 (32 bytes) and CRC-32 (4, big-endian) start: after the magic and the build id (32). */
const SHA256_AT = MAGIC.length + 32;
const CRC32_AT = SHA256_AT + 32;
/** Bytes of the header. */
const HEADER = CRC32_AT + 4;
/** The bundle's last line names its build id: the SHA-256 of everything before that line, in hex. */
const BUILD_ID = /\n\/\/# flightrec-build-id=([0-9a-f]{64})\n?$/;
/**
 * How a bundle written inside Node's module wrapper starts (Node's own `Module.wrapper[0]`): the
 * build writes dist/cli.cjs so (scripts/build.mjs), and its text is compiled as it is. Any other
 * file is wrapped here as Node's loader would; the wrapper and the text then make a second string
 * V8 copies whole before compiling (1.8 MB: about 450 fresh pages, 3-5 ms of a start).
 */
export const MODULE_WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
/** What closes the module wrapper (Node's `Module.wrapper[1]`). */
export const MODULE_WRAPPER_TAIL = '\n});';

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

/** A CRC-32 of bytes (zlib's), where this Node has one. */
type Crc32 = (data: Uint8Array) => number;

/** zlib.crc32 of this Node (20.15 and later), else null. */
const ZLIB_CRC32 = (zlib as { crc32?: Crc32 }).crc32 ?? null;

/** The SHA-256 of `data`; node:crypto is loaded only when this is called (any absolute path resolves a built-in). */
function sha256(data: Uint8Array): Buffer {
  const crypto = createRequire(process.execPath)('node:crypto') as typeof import('node:crypto');
  return crypto.createHash('sha256').update(data).digest();
}

/** The CRC-32 of zlib computed bit by bit (slow: for a build on a Node without zlib.crc32). */
export function bitwiseCrc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** The cache file's bytes for `payload` (V8's cached data) made from the bundle of `buildId`. */
export function cacheFileBytes(buildId: Buffer, payload: Buffer, crc32: Crc32 | null = ZLIB_CRC32): Buffer {
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE((crc32 ?? bitwiseCrc32)(payload) >>> 0);
  return Buffer.concat([MAGIC, buildId, sha256(payload), crc, payload]);
}

/**
 * The V8 payload of a cache file, when its header says it is whole and made for `buildId`: its
 * CRC-32 checked with `crc32`, or, with null (a Node without zlib.crc32), its SHA-256.
 */
export function cachePayload(
  file: Buffer,
  buildId: Buffer | undefined,
  crc32: Crc32 | null = ZLIB_CRC32,
): Buffer | undefined {
  if (buildId === undefined || file.length <= HEADER) return undefined;
  if (!file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  if (!file.subarray(MAGIC.length, SHA256_AT).equals(buildId)) return undefined;
  const payload = file.subarray(HEADER);
  const intact =
    crc32 === null
      ? sha256(payload).equals(file.subarray(SHA256_AT, CRC32_AT))
      : crc32(payload) >>> 0 === file.readUInt32BE(CRC32_AT);
  return intact ? payload : undefined;
}

/**
 * The text of a source file's bytes: ASCII (the build writes the bundle so: scripts/ascii-only.mjs)
 * is copied byte for byte into a one-byte string, which UTF-8 decoding gives too, only slower;
 * anything else is decoded as UTF-8.
 */
export function sourceText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * Reads a file, or undefined when it cannot be read: into `room` when it fits (memory the process
 * has touched already: on a VM each fresh 4 KiB page costs a fault of 10 µs or more, a 0.9 MB
 * cache about 230 of them), else into a buffer of its own.
 */
function readOrUndefined(path: string, room: Buffer): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    if (size > room.length) return readFileSync(fd);
    let got = 0;
    for (let n = -1; got < size && n !== 0; got += n) n = readSync(fd, room, got, size - got, got);
    return room.subarray(0, got);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Compiles the CommonJS bundle `file` as Node's own loader would (the same module wrapper: the
 * file's own when it starts with MODULE_WRAPPER_HEAD), with the cache `cacheFile` when it is usable; `cacheFile` undefined compiles without one. The cache
 * is read into the bundle's bytes once they are decoded (the source is a copy of them).
 */
export function compileBundle(file: string, cacheFile: string | undefined): CompiledBundle {
  const fileBytes = readFileSync(file);
  const source = sourceText(fileBytes);
  const buildId = buildIdOf(source);
  const bytes = cacheFile === undefined ? undefined : readOrUndefined(cacheFile, fileBytes);
  const cachedData = bytes === undefined ? undefined : cachePayload(bytes, buildId);
  const wrapped = source.startsWith(MODULE_WRAPPER_HEAD) ? source : Module.wrap(source);
  const script = new Script(wrapped, { filename: file, cachedData });
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
