/**
 * A read-only npm registry on 127.0.0.1 for the package test: it serves the runtime dependencies
 * that package-lock.json pins, their tarballs read from the local npm cache (where `npm ci` left
 * them, addressed by the lock's integrity), so `npm install -g` of the packed flightrec resolves
 * and downloads everything over loopback and never reaches the public registry.
 *
 * Why not `npm install --offline`: npm 11 asks for full packuments (not the abbreviated ones
 * `npm ci` caches) when it resolves the ranges of a package's dependencies, so an offline install
 * of the tarball fails with ENOTCACHED.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** One package version of package-lock.json, as the lock records it. */
export interface LockEntry {
  readonly version: string;
  readonly integrity: string;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly extraneous?: boolean;
  readonly [field: string]: unknown;
}

/** The fields of a lock entry that a registry manifest carries too. */
const MANIFEST_FIELDS = [
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bin',
  'engines',
  'os',
  'cpu',
  'license',
  'hasInstallScript',
] as const;

/** A running loopback registry. */
export interface LoopbackRegistry {
  /** the registry URL, http://127.0.0.1:PORT/ */
  readonly url: string;
  /** package names asked for that the lock does not hold (an install then fails on them) */
  readonly unknown: readonly string[];
  /** how many tarballs were served */
  readonly tarballsServed: () => number;
  close(): Promise<void>;
}

/** The cacache content path of an integrity string (sha512-BASE64) under the npm cache directory. */
export function cachedContentPath(npmCache: string, integrity: string): string {
  const [algorithm, digest] = integrity.split('-', 2) as [string, string];
  const hex = Buffer.from(digest, 'base64').toString('hex');
  return join(npmCache, '_cacache', 'content-v2', algorithm, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
}

/**
 * The packuments of the runtime (non-dev, non-extraneous) packages of a package-lock.json, by
 * package name. `tarballUrl` returns where a version's tarball is served, or undefined to leave
 * the version out (an optional package for another platform that the cache does not hold).
 */
export function runtimePackuments(
  lockFile: string,
  tarballUrl: (entry: LockEntry) => string | undefined,
): Map<string, object> {
  const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as { packages: Record<string, LockEntry> };
  const versions = new Map<string, Map<string, object>>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev === true || entry.extraneous === true) continue;
    const tarball = tarballUrl(entry);
    if (tarball === undefined) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const manifest: Record<string, unknown> = { name, version: entry.version };
    for (const field of MANIFEST_FIELDS) if (entry[field] !== undefined) manifest[field] = entry[field];
    manifest['dist'] = { tarball, integrity: entry.integrity };
    let byVersion = versions.get(name);
    if (byVersion === undefined) versions.set(name, (byVersion = new Map()));
    byVersion.set(entry.version, manifest);
  }
  const packuments = new Map<string, object>();
  for (const [name, byVersion] of versions) {
    // any version will do as `latest`: npm resolves every range against `versions`
    const latest = [...byVersion.keys()].at(-1);
    packuments.set(name, { name, 'dist-tags': { latest }, versions: Object.fromEntries(byVersion) });
  }
  return packuments;
}

/** Starts the registry on an ephemeral loopback port. Fails when a pinned tarball is not in the npm cache. */
export async function startLoopbackRegistry(lockFile: string, npmCache: string): Promise<LoopbackRegistry> {
  const tarballs = new Map<string, string>();
  let packuments = new Map<string, object>();
  const unknown: string[] = [];
  let served = 0;
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!.slice(1));
    const tarball = /^-\/tarball\/(\d+)\.tgz$/.exec(path);
    if (tarball !== null && tarballs.has(tarball[1]!)) {
      served += 1;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(readFileSync(tarballs.get(tarball[1]!)!));
      return;
    }
    const packument = packuments.get(path);
    if (packument === undefined) {
      unknown.push(path);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(packument));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = (): Promise<void> =>
    new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const missing: string[] = [];
  packuments = runtimePackuments(lockFile, (entry) => {
    const file = cachedContentPath(npmCache, entry.integrity);
    if (!existsSync(file)) {
      if (entry.optional !== true) missing.push(file);
      return undefined;
    }
    const id = String(tarballs.size);
    tarballs.set(id, file);
    return `${url}-/tarball/${id}.tgz`;
  });
  if (missing.length > 0) {
    await close();
    throw new Error(
      `${missing.length} pinned tarballs are not in the npm cache ${npmCache} (run npm ci first), e.g. ${missing[0]}`,
    );
  }
  return { url, unknown, tarballsServed: () => served, close };
}
