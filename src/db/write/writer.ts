/**
 * The HistoryWriter: one transaction per call attempt. The poll row (and for failures the raw
 * body, gzip'd) is always written; a successful answer is split into the operation's tables.
 * Any error rolls the whole poll back and drops every cache, so nothing partial remains.
 */
import { gzipSync } from 'node:zlib';
import { JsonDepthError, MAX_JSON_DEPTH, stringifyJson, type JsonValue } from '../../api/codec/lossless-json.ts';
import { isOperationName, OPERATIONS, type ResponseOf } from '../../api/schema/operations.ts';
import { encodeMessage } from '../../api/wire/encode.ts';
import { ConnectionIngest, DEFAULT_BATCH_FRAMES } from '../connections/ingest.ts';
import { DocStore, StringDict } from '../encoding/dictionary.ts';
import { PollWriteError } from '../errors.ts';
import type { FlightrecDb } from '../engines/open.ts';
import { StoreRefusedError, type HistoryWriter, type PollRecord, type StoredPoll } from '../poll-record.ts';
import { SmallIngest } from './small-writer.ts';
import { describeWriteError, refusalCode, substituteRecord } from './write-failure.ts';
import { extraText, sqlInt, withBig, type BigValues } from '../encoding/sql-values.ts';

/**
 * The page cache of a writer's connection, KiB. A writer appends: its reads are the open batch's
 * head frames at a seal and the uid index of new connections, a few MiB at 10,000 connections.
 * The 64 MiB every connection gets by default fills as the file grows and stays resident in a
 * long-running collector. Its effect is bounded by the file's size, so short runs cannot show it
 * (measurements and their limits: docs/performance.md, "The collector's memory"). 4 MiB, not 16:
 * the store bench's ingest and write CPU were no higher with it (3 alternating runs each), the
 * pages it no longer keeps come from the operating system's cache, and every page SQLite keeps is
 * memory the collector holds (the soak: docs/performance.md, "One thread fewer").
 */
export const WRITER_CACHE_KIB = 4096;

/** Options of createHistoryWriter. */
export interface HistoryWriterOptions {
  /** connection frames per batch before sealing into chunks (default 8) */
  readonly batchFrames?: number;
  /** seal open batches on close (default true) */
  readonly sealOnClose?: boolean;
}

/** A HistoryWriter with a few extra doors for tools and tests. */
export interface FlightrecWriter extends HistoryWriter {
  /** Seals every open connection batch now (each in its own transaction). */
  seal(): void;
}

/** Creates the writer of an open (read-write) database. */
export function createHistoryWriter(db: FlightrecDb, opts: HistoryWriterOptions = {}): FlightrecWriter {
  if (db.readonly) throw new PollWriteError('-', '-', `database ${db.path} is open read-only`);
  const sqlite = db.sqlite;
  db.engine.cacheKiB(WRITER_CACHE_KIB);
  const dict = new StringDict(sqlite);
  const docs = new DocStore(sqlite);
  const conns = new ConnectionIngest(db, dict, opts.batchFrames ?? DEFAULT_BATCH_FRAMES);
  const small = new SmallIngest(sqlite, dict, docs);
  const clusters = new Map<string, number>();
  const q = {
    findCluster: sqlite.prepare('SELECT id FROM cluster WHERE name = ?').pluck(),
    insertCluster: sqlite.prepare('INSERT INTO cluster (name) VALUES (?)'),
    insertPoll: sqlite.prepare(
      `INSERT INTO poll (cluster_id, operation, target, round, attempt, scheduled_at, started_at, ended_at, ok, outcome, kind,
         http_status, message, details, path, bytes, request, rows_returned, total_size, fanout_calls, slice, redactions)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // a copy keeping the source's poll id (PollRecord.id)
    insertPollWithId: sqlite.prepare(
      `INSERT INTO poll (cluster_id, operation, target, round, attempt, scheduled_at, started_at, ended_at, ok, outcome, kind,
         http_status, message, details, path, bytes, request, rows_returned, total_size, fanout_calls, slice, redactions, id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    setExtra: sqlite.prepare('UPDATE poll SET extra = ? WHERE id = ?'),
    insertRaw: sqlite.prepare(`INSERT INTO poll_raw (poll_id, encoding, body) VALUES (?, 'gzip', ?)`),
    // both counters in one query (one round trip on PostgreSQL)
    generations: sqlite
      .prepare<[], [prune: number | null, docs: number | null]>(
        `SELECT (SELECT max(value) FROM meta WHERE key = 'prune_generation'), (SELECT max(value) FROM meta WHERE key = 'doc_generation')`,
      )
      .raw(),
  };
  let generation: number | undefined;
  // bumped by retention's cleanup when it removes documents: only the document cache is stale then
  let docGeneration: number | undefined;
  // checkpoints go with batch seals (already the slow polls), not into ordinary commits
  db.engine.deferCheckpoints();
  let checkpointDue = false;

  const clusterId = (name: string): number => {
    let id = clusters.get(name);
    if (id === undefined) {
      id = (q.findCluster.get(name) as number | undefined) ?? Number(q.insertCluster.run(name).lastInsertRowid);
      clusters.set(name, id);
    }
    return id;
  };

  const write = sqlite.transaction((r: PollRecord): bigint => {
    const [pruneGen, docGen0] = q.generations.get() ?? [null, null];
    const gen = Number(pruneGen ?? 0);
    if (gen !== generation) {
      if (generation !== undefined) reset(); // a prune removed rows the caches may name
      generation = gen;
    }
    const docGen = Number(docGen0 ?? 0);
    if (docGen !== docGeneration) {
      if (docGeneration !== undefined) docs.reset();
      docGeneration = docGen;
    }
    const cid = clusterId(r.cluster);
    db.engine.scopeCluster(cid);
    const o = r.outcome;
    const failed = o.ok ? undefined : o;
    const request = stringifyJson(encodeMessage(OPERATIONS[r.operation].request, r.request as Record<string, unknown>));
    const cov = r.coverage;
    // exact values of INTEGER columns beyond int64 (a uint64 totalSize of a ListKafkaConnections
    // poll, the only kind with coverage), kept in the poll's extra JSON
    const big: BigValues = {};
    const insert = r.id === undefined ? q.insertPoll : q.insertPollWithId;
    const pollId = Number(
      insert.run(
        cid,
        r.operation,
        r.target,
        r.round,
        r.attempt,
        r.scheduledAt,
        r.startedAt,
        r.endedAt,
        o.ok ? 1 : 0,
        failed === undefined ? 'ok' : failed.code,
        failed?.kind ?? null,
        failed?.httpStatus ?? null,
        failed?.message ?? null,
        failed?.details === undefined ? null : boundedJson(failed.details as JsonValue),
        failed?.path ?? null,
        o.bytes,
        request,
        cov?.rowsReturned ?? null,
        cov === undefined ? null : sqlInt(cov.totalSize, 'total_size', big),
        cov?.fanoutCalls ?? null,
        cov?.slice ?? null,
        r.redactions === undefined || r.redactions <= 0 ? null : r.redactions,
        ...(r.id === undefined ? [] : [r.id]),
      ).lastInsertRowid,
    );
    if (o.raw !== undefined && (!o.ok || db.keepRawAnswers)) q.insertRaw.run(pollId, gzipSync(o.raw));
    const extra = o.ok ? writeAnswer(r, cid, pollId, o.answer, big) : withBig(undefined, big);
    if (extra !== null) q.setExtra.run(checkDepth(extra), pollId);
    return BigInt(pollId);
  });

  const writeAnswer = (r: PollRecord, cid: number, pollId: number, answer: unknown, big: BigValues): string | null => {
    switch (r.operation) {
      case 'ListKafkaConnections': {
        const a = answer as ResponseOf<'ListKafkaConnections'>;
        if (conns.write(cid, pollId, a, big, r.round)) checkpointDue = true;
        return extraText({ '': a.$unknown }, big, { '': a.$absent });
      }
      case 'GetShadowLink':
        return small.shadowLink(pollId, answer as ResponseOf<'GetShadowLink'>);
      case 'ListShadowTopics':
        return small.shadowTopics(
          pollId,
          (r.request as { shadowLinkName: string }).shadowLinkName,
          answer as ResponseOf<'ListShadowTopics'>,
        );
      case 'GetShadowTopic':
        return small.shadowTopic(
          pollId,
          (r.request as { shadowLinkName: string }).shadowLinkName,
          answer as ResponseOf<'GetShadowTopic'>,
        );
      case 'GetUpgradeStatus':
        return small.upgrade(pollId, answer as ResponseOf<'GetUpgradeStatus'>);
      case 'GetIcebergStatus':
        return small.iceberg(pollId, answer as ResponseOf<'GetIcebergStatus'>);
    }
  };

  const reset = (): void => {
    generation = undefined;
    clusters.clear();
    dict.reset();
    docs.reset();
    conns.reset();
  };

  const writer: FlightrecWriter = {
    writePoll(record: PollRecord): bigint {
      if (!isOperationName(record.operation)) {
        throw new PollWriteError(record.cluster, String(record.operation), 'unknown operation');
      }
      try {
        const id = write.immediate(record);
        // not inside a caller's transaction (db copy writes a batch of polls in one): neither a
        // checkpoint nor a VACUUM can run there
        if (checkpointDue && !sqlite.inTransaction) {
          checkpointDue = false;
          db.engine.afterSeal(id);
        }
        return id;
      } catch (err) {
        checkpointDue = false;
        reset();
        if (err instanceof PollWriteError) throw err;
        const reason = err instanceof Error ? err.message : String(err);
        throw new PollWriteError(record.cluster, record.operation, reason, { cause: err });
      }
    },
    storePoll(record: PollRecord): StoredPoll {
      let reason: string;
      try {
        return { id: writer.writePoll(record) };
      } catch (err) {
        refuse(err);
        reason = describeWriteError((err as { cause?: unknown }).cause ?? err);
      }
      // the record itself cannot be stored: store a failed poll saying why, then a minimal one
      for (const minimal of [false, true]) {
        try {
          return { id: writer.writePoll(substituteRecord(record, reason, minimal)), substituted: reason };
        } catch (err) {
          refuse(err);
        }
      }
      throw new StoreRefusedError(`the database cannot take even a minimal poll record (${reason})`, '');
    },
    seal(): void {
      try {
        conns.sealAll();
      } catch (err) {
        reset();
        throw err;
      }
    },
    close(): void {
      if (!db.sqlite.open) return;
      if (opts.sealOnClose ?? true) this.seal();
      db.engine.checkpoint();
      db.close();
    },
  };
  return writer;
}

/** Throws a StoreRefusedError when `err` means the store refuses writes. */
function refuse(err: unknown): void {
  const code = refusalCode(err);
  if (code === undefined) return;
  const cause = (err as { cause?: unknown }).cause ?? err;
  throw new StoreRefusedError(describeWriteError(cause), code, { cause: err });
}

/** Nesting depth of JSON text (brackets outside strings). */
function jsonTextDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** The text itself, when its nesting stays within what the readers parse back (MAX_JSON_DEPTH). */
function checkDepth(text: string): string {
  if (text.length > 2 * MAX_JSON_DEPTH && jsonTextDepth(text) > MAX_JSON_DEPTH) throw JsonDepthError.writing();
  return text;
}

/** stringifyJson of a value the readers must parse back: refused beyond MAX_JSON_DEPTH. */
function boundedJson(value: JsonValue): string {
  return checkDepth(stringifyJson(value));
}
