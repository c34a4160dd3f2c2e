/**
 * Store faults for the reliability suite: damaged database files (garbage header, garbage
 * pages), a database from a newer flightrec, file digests to prove nothing was modified, and
 * matching recorded polls to the answers the fault proxy served.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { parseJsonLossless } from '../../../src/api/codec/lossless-json.ts';
import type { OperationName } from '../../../src/api/schema/operations.ts';
import type { PollRow } from '../../../src/api/schema/resources.ts';
import { decodeRequest, encodeAnswer, encodeRequest, parseAnswer } from '../../../src/api/wire/answers.ts';
import type { HistoryReader } from '../../../src/db/index.ts';
import type { ProxyLogEntry } from './fault-proxy.ts';

/** SHA-256 of a file and of its -wal and -shm companions (absent ones count as empty). */
export function fileDigest(path: string): string {
  const h = createHash('sha256');
  for (const p of [path, `${path}-wal`]) h.update(existsSync(p) ? readFileSync(p) : Buffer.alloc(0)).update('|');
  return h.digest('hex');
}

/** Overwrites `length` bytes at `offset` with a pattern (a disk that returned garbage). */
export function scribble(path: string, offset: number, length: number, byte = 0xa5): void {
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.alloc(length, byte), 0, length, offset);
  } finally {
    closeSync(fd);
  }
}

/** Makes a database look as if a newer flightrec had written it (a later schema version and migration). */
export function makeNewer(path: string): void {
  const db = new Database(path);
  try {
    db.pragma('user_version = 99');
    db.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run(
      'from-the-future',
      Date.now() + 10 * 365 * 86_400_000,
    );
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/** The page size and page count of a database file (read from its header). */
export function pagesOf(path: string): { size: number; count: number } {
  const head = readFileSync(path).subarray(0, 100);
  const raw = head.readUInt16BE(16);
  const size = raw === 1 ? 65536 : raw;
  return { size, count: head.readUInt32BE(28) };
}

/** The key under which a call is matched to its poll: operation, simulated instant, request. */
function keyOf(op: string, at: bigint, request: string): string {
  return `${op}|${at}|${request}`;
}

/**
 * Checks every poll against the answer the proxy served for the same call (same operation,
 * instant and request): ok polls reconstruct it exactly. Returns what differs, and how many
 * calls the proxy saw that have no poll (records lost).
 */
export function compareWithServed(
  reader: HistoryReader,
  polls: readonly PollRow[],
  log: readonly ProxyLogEntry[],
): { problems: string[]; lost: number } {
  const served = new Map<string, ProxyLogEntry[]>();
  for (const e of log) {
    const req = encodeRequest(e.op, decodeRequest(e.op, parseJsonLossless(e.request)) as never);
    const k = keyOf(e.op, e.atNs, req);
    served.set(k, [...(served.get(k) ?? []), e]);
  }
  const problems: string[] = [];
  let matched = 0;
  for (const p of polls) {
    const op = p.operation as OperationName;
    const r = reader.reconstructAnswer(p.id);
    const list = served.get(keyOf(op, p.startTime, encodeRequest(op, r.request as never)));
    const e = list?.shift();
    if (e === undefined) {
      problems.push(`poll ${p.id} ${op} at ${p.startTime}: no such call was served`);
      continue;
    }
    matched++;
    if (p.outcome !== 'ok' || e.served === undefined) continue;
    const expected = encodeAnswer(op, parseAnswer(op, e.served.body) as never);
    if (encodeAnswer(op, r.answer as never) !== expected)
      problems.push(`poll ${p.id} ${op}: answer differs from what was served`);
  }
  return { problems, lost: log.length - matched };
}
