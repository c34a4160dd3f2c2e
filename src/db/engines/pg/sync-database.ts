/**
 * A synchronous PostgreSQL handle with the part of better-sqlite3's API the store uses (prepare,
 * get/all/run/iterate, pluck/raw/safeIntegers, transaction with deferred/immediate, exec, pragma),
 * so the store's code runs unchanged on both engines. Each call posts a request to the bridge
 * worker (which owns the connection) and sleeps on a shared flag until the reply is posted:
 * the calling thread blocks for the round trip, exactly as it does on better-sqlite3.
 *
 * Transactions: `immediate` (and a plain call) take a transaction-scoped advisory lock first, so
 * writers take turns as on SQLite; `deferred` is a read-only REPEATABLE READ transaction, one
 * snapshot for every statement, as SQLite's read transaction. Nested calls use savepoints.
 *
 * Reads posted ahead: in a read transaction, `prefetch` posts a statement without waiting; the
 * worker answers requests in posting order, so the server runs it while this thread works, and
 * the next get/all with the same arguments takes its reply (src/db/prefetch.ts).
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { launchThread } from '../../../threads/launch.ts';
import {
  PG_TYPE,
  type BatchItem,
  type BridgeEngine,
  type BridgeInit,
  type BridgeReply,
  type BridgeRequest,
  WORKER_STOPPED,
} from './bridge-protocol.ts';
import { isUtf16Text, isWellFormed } from '../../encoding/bytes.ts';
import type { ArgsOf, SqlRunResult, SqlSession, SqlStatement, SqlTransaction, TxFunction } from '../../sql-session.ts';
import { translateToPostgres, type PgStatementText } from './translate.ts';
import { bridgeWorkerSource } from './worker-source.ts';
import type { WorkerEntry } from '../../../threads/worker-entry.ts';
import { PgError } from './pg-error.ts';

export { PgError };

/** The advisory lock key of write transactions (any constant shared by every flightrec). */
export const WRITE_LOCK = 7_262_917_302;

/** What runs a statement; the bridge, or a test double. */
export interface PgSyncOptions {
  readonly engine: BridgeEngine;
  /** how long a request may take before the handle gives up (default 120 s) */
  readonly timeoutMs?: number;
  /**
   * how long a server's worker may show no sign of life before it is taken for dead (default
   * 10 s): one that ran out of memory runs no code of its own, not even its exit (worker-source.ts)
   */
  readonly silentMs?: number;
  /** removes secrets from driver messages */
  readonly redact?: (message: string) => string;
}

type OkReply = Extract<BridgeReply, { ok: true }>;

/** A read posted ahead of need (`prefetch`): its text, parameters and, once received, its reply. */
interface Ahead {
  readonly sql: string;
  readonly params: readonly unknown[];
  reply: BridgeReply | undefined;
}

/** The BEGIN of a read (`deferred`) transaction: one snapshot for every statement, as SQLite's. */
const READ_BEGIN = 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/** Most reads posted ahead and not taken yet. */
const MAX_AHEAD = 8;

/** Whether two lists of bound parameters are the same (bytes compared by content). */
function sameParams(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (!(x instanceof Uint8Array && y instanceof Uint8Array && Buffer.compare(x, y) === 0)) return false;
  }
  return true;
}

/** Converts one value as better-sqlite3 would return it. */
function convert(v: unknown, type: number, safe: boolean): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case PG_TYPE.int8:
      return safe ? BigInt(v as string) : Number(v);
    case PG_TYPE.numeric: {
      const s = v as string;
      return safe && /^-?\d+$/.test(s) ? BigInt(s) : Number(s);
    }
    case PG_TYPE.int2:
    case PG_TYPE.int4:
      return safe ? BigInt(v as number) : v;
    case PG_TYPE.bool:
      return v === true ? 1 : 0;
    case PG_TYPE.bytea:
      return v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.length) : v;
    default:
      return typeof v === 'string' ? unescapeText(v) : v;
  }
}

/**
 * PostgreSQL text holds neither NUL nor lone surrogates, which SQLite keeps (the latter as a blob:
 * `textToSql`). Such a string travels as U+FFFF and the base64 of its UTF-16 code units, and
 * comes back as the same string; a string that starts with U+FFFF is escaped too, so that every
 * stored text starting with it is an escaped one. So is one starting with U+FEFF: PGlite's text
 * decoding drops a leading byte order mark.
 */
const ESCAPED = '\uFFFF';

function escapeText(s: string): string {
  if (!s.includes('\u0000') && !s.startsWith(ESCAPED) && !s.startsWith('\uFEFF') && isWellFormed(s)) return s;
  return ESCAPED + Buffer.from(s, 'utf16le').toString('base64');
}

function unescapeText(s: string): string {
  return s.startsWith(ESCAPED) ? Buffer.from(s.slice(1), 'base64').toString('utf16le') : s;
}

function bindValue(p: unknown): unknown {
  if (typeof p === 'string') return escapeText(p);
  if (typeof p === 'bigint') return p.toString();
  if (typeof p === 'boolean') return p ? 1 : 0;
  if (p === undefined) return null;
  if (p instanceof Uint8Array && isUtf16Text(p)) return ESCAPED + Buffer.from(p).toString('base64');
  return p;
}

/** Parameters as better-sqlite3 takes them: spread, one array, or one object of named values. */
function bindable(args: readonly unknown[], names: readonly string[] | undefined): unknown[] {
  if (names !== undefined) {
    const o = args[0];
    if (args.length !== 1 || typeof o !== 'object' || o === null)
      throw new TypeError('named parameters need one object');
    return names.map((n) => bindValue((o as Record<string, unknown>)[n]));
  }
  const list = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
  return list.map(bindValue);
}

/**
 * A prepared statement (the SQL is translated once; PostgreSQL plans it per call). `P` and `R`
 * type its parameters and rows as the caller declares them, as better-sqlite3's do.
 */
export class PgStatement<P extends unknown[] = unknown[], R = unknown> implements SqlStatement<P, R> {
  readonly #db: PgSyncDatabase;
  readonly #text: PgStatementText;
  #pluck = false;
  #raw = false;
  #safe = false;
  readonly source: string;
  readonly reader: boolean;
  constructor(db: PgSyncDatabase, source: string, text: PgStatementText) {
    this.#db = db;
    this.source = source;
    this.#text = text;
    this.reader = text.reader;
  }
  pluck(on = true): this {
    this.#pluck = on;
    if (on) this.#raw = false;
    return this;
  }
  raw(on = true): this {
    this.#raw = on;
    if (on) this.#pluck = false;
    return this;
  }
  safeIntegers(on = true): this {
    this.#safe = on;
    return this;
  }
  #shape(reply: OkReply): unknown[] {
    const { fields, values, length } = reply;
    const safe = this.#safe;
    const width = fields.length;
    const out = new Array<unknown>(length);
    if (this.#pluck) {
      const type = fields[0]?.type ?? 0;
      for (let r = 0; r < length; r++) out[r] = convert(values[r * width], type, safe);
      return out;
    }
    for (let r = 0, at = 0; r < length; r++) {
      if (this.#raw) {
        const row = new Array<unknown>(width);
        for (let i = 0; i < width; i++, at++) row[i] = convert(values[at], fields[i]!.type, safe);
        out[r] = row;
      } else {
        const o: Record<string, unknown> = {};
        for (let i = 0; i < width; i++, at++) o[fields[i]!.name] = convert(values[at], fields[i]!.type, safe);
        out[r] = o;
      }
    }
    return out;
  }
  /** The reply of this statement with these arguments: a read posted ahead with them, else one round trip. */
  #reply(args: unknown[]): OkReply {
    const sql = this.#text.sql;
    const params = bindable(args, this.#text.names);
    if (this.#text.reader) {
      const ahead = this.#db.take(sql, params);
      if (ahead !== undefined) return ahead;
    } else this.#db.forgetAhead();
    return this.#db.request({ kind: 'query', sql, params });
  }
  get(...args: P): R | undefined {
    return this.#shape(this.#reply(args))[0] as R | undefined;
  }
  all(...args: P): R[] {
    return this.#shape(this.#reply(args)) as R[];
  }
  /**
   * Posts this read without waiting for it (PostgreSQL only; no such method on better-sqlite3):
   * the server runs it while the caller works, and the next get/all/iterate with the same
   * arguments in this transaction takes its reply. Whether it was posted: not outside a read
   * (`deferred`) transaction, nor for a write.
   */
  prefetch(...args: unknown[]): boolean {
    return this.#text.reader && this.#db.prefetch(this.#text.sql, bindable(args, this.#text.names));
  }
  iterate(...args: P): IterableIterator<R> {
    return this.all(...args)[Symbol.iterator]();
  }
  run(...args: P): SqlRunResult {
    const params = bindable(args, this.#text.names);
    if (!this.#text.reader) {
      // inside a transaction, a write whose result is not read yet waits in the batch
      const later = this.#db.later(this.#text.sql, params);
      if (later !== undefined) return later;
    }
    const reply = this.#db.request({ kind: 'query', sql: this.#text.sql, params });
    // the first column of the last row
    const last =
      this.#text.returnsId && reply.length > 0 ? reply.values[(reply.length - 1) * reply.fields.length] : undefined;
    return {
      changes: reply.rowCount,
      lastInsertRowid: last === undefined ? 0 : this.#safe ? BigInt(last as string) : Number(last),
    };
  }
}

type TxMode = 'deferred' | 'immediate';

/** Queued writes are sent at this many (or before any read, and at commit). */
const MAX_QUEUED = 2000;
const MAX_QUEUED_PARAMS = 200_000;

/** How often a server's worker shows it is alive, and the longest sleep between two looks at it. */
const BEAT_MS = 250;
const LOOK_MS = 1000;

/** The synchronous handle. */
export class PgSyncDatabase implements SqlSession {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #flag: Int32Array;
  /** what a worker kept after this handle closes must match to serve another (undefined: never kept) */
  readonly #key: string | undefined;
  readonly #timeoutMs: number;
  /** 0: the engine runs in the worker's own thread (PGlite), which cannot show signs of life while it works */
  readonly #silentMs: number;
  readonly #redact: (message: string) => string;
  readonly #translated = new Map<string, PgStatementText>();
  #depth = 0;
  /** the running transaction is a read (`deferred`): only there are reads posted ahead */
  #reading = false;
  #open = true;
  /** writes of the running transaction not sent yet */
  #queue: { readonly item: BatchItem; readonly slot: { count: number } }[] = [];
  #queuedParams = 0;
  /** replies waited for so far, and the time spent waiting (ms): see `waits` */
  readonly #waits = { count: 0, ms: 0 };
  /** the cluster the running transaction is scoped to (scopeCluster) */
  #scope: number | undefined;
  /** the BEGIN of the running write transaction while not sent: it goes with the transaction's first request */
  #begin: string | undefined;
  /** that BEGIN failed: the transaction never began, and nothing more is sent in it */
  #beginFailure: PgError | undefined;
  /** replies still to come, in the order their requests were posted: a prefetch's entry, or undefined for the request waited for */
  #posted: (Ahead | undefined)[] = [];
  /** reads of the running transaction posted ahead and not taken yet */
  #ahead: Ahead[] = [];
  /** the first failure among the replies of reads posted ahead (it aborted the transaction) */
  #aheadFailure: BridgeReply | undefined;
  /** the reply of the request waited for (#send), until #send returns it */
  #last: BridgeReply | undefined;
  readonly readonly: boolean;
  constructor(opts: PgSyncOptions & { readonly readonly?: boolean }) {
    const source = bridgeWorkerSource();
    const beatMs = opts.engine.kind === 'pg' ? BEAT_MS : 0;
    // a server's worker may serve the next handle of a server started by the same entry (see `close`)
    this.#key = beatMs === 0 ? undefined : JSON.stringify(source);
    const kept = this.#key === undefined ? undefined : takeKept(this.#key);
    const bridge = kept ?? launchBridge(source, opts.engine, beatMs);
    this.#worker = bridge.worker;
    this.#port = bridge.port;
    this.#flag = bridge.flag;
    this.#timeoutMs = opts.timeoutMs ?? 120_000;
    this.#silentMs = beatMs === 0 ? 0 : Math.max(opts.silentMs ?? 10_000, 4 * BEAT_MS);
    this.#redact = opts.redact ?? ((m) => m);
    this.readonly = opts.readonly ?? false;
    // a kept worker is told whom it serves now, ahead of the first request (its reply is taken before that one's)
    if (kept !== undefined)
      this.#post({ kind: 'engine', engine: opts.engine }, { sql: '', params: [], reply: undefined });
  }

  /**
   * Queues a write of the running transaction (its result is read lazily: reading `changes`
   * sends the queue); undefined outside a transaction, where a write runs at once.
   */
  later(sql: string, params: unknown[]): { changes: number; lastInsertRowid: number } | undefined {
    if (this.#depth === 0) return undefined;
    this.forgetAhead();
    const slot = { count: -1 };
    this.#queue.push({ item: { sql, params }, slot });
    this.#queuedParams += params.length;
    if (this.#queue.length >= MAX_QUEUED || this.#queuedParams >= MAX_QUEUED_PARAMS) this.#flush();
    const flush = () => this.#flush();
    return {
      get changes() {
        if (slot.count < 0) flush();
        return slot.count;
      },
      lastInsertRowid: 0,
    };
  }

  /** Sends the queued writes (one round trip), before any other request; `then` (COMMIT) follows them in it. */
  #flush(then?: string): void {
    if (this.#queue.length === 0) return;
    const queued = this.#queue;
    this.#queue = [];
    this.#queuedParams = 0;
    const items = queued.map((q) => q.item);
    const reply = this.#send(then === undefined ? { kind: 'batch', items } : { kind: 'batch', items, then });
    queued.forEach((q, i) => {
      q.slot.count = reply.counts?.[i] ?? 0;
    });
  }

  /** Posts a read of the running read transaction ahead of need; see PgStatement.prefetch. */
  prefetch(sql: string, params: readonly unknown[]): boolean {
    // only in a read transaction: a read that fails aborts the transaction, which must lose no write
    if (!this.#reading || this.#depth === 0 || !this.#open || this.#ahead.length >= MAX_AHEAD) return false;
    if (this.#beginFailure !== undefined) return false;
    const entry: Ahead = { sql, params, reply: undefined };
    // the first request of the transaction carries its BEGIN
    const before = this.#begin;
    this.#begin = undefined;
    this.#post(before === undefined ? { kind: 'query', sql, params } : { kind: 'query', sql, params, before }, entry);
    this.#ahead.push(entry);
    return true;
  }

  /** The reply of a read posted ahead with this text and these parameters (waiting for it), or undefined. */
  take(sql: string, params: readonly unknown[]): OkReply | undefined {
    const ahead = this.#ahead;
    if (ahead.length === 0) return undefined;
    const i = ahead.findIndex((a) => a.sql === sql && sameParams(a.params, params));
    if (i < 0) return undefined;
    const entry = ahead[i]!;
    ahead.splice(i, 1);
    if (entry.reply === undefined) {
      const t = performance.now();
      try {
        while (entry.reply === undefined) this.#receive();
      } finally {
        this.#count(t);
      }
    }
    if (!entry.reply.ok) this.#aheadFailure ??= entry.reply;
    return this.#checked(entry.reply);
  }

  /** Drops the reads posted ahead (a write or the transaction's end makes them stale); their replies are discarded. */
  forgetAhead(): void {
    if (this.#ahead.length > 0) this.#ahead = [];
    this.#aheadFailure = undefined;
  }

  /** Sends one request (after the queued writes) and waits for its reply (throws PgError for a failure). */
  request(req: BridgeRequest): OkReply {
    if (req.kind !== 'query') this.forgetAhead();
    if (this.#begin !== undefined && req.kind === 'exec' && req.sql === 'ROLLBACK') {
      // nothing of the transaction was sent: there is nothing to roll back
      this.#begin = undefined;
      this.#dropQueue();
      return { ok: true, values: [], length: 0, fields: [], rowCount: 0 };
    }
    if (this.#queue.length > 0) {
      // writes queued since the transaction (or savepoint) began are rolled back unsent
      if (req.kind === 'exec' && req.sql.startsWith('ROLLBACK')) this.#dropQueue();
      else if (req.kind === 'query' && this.#begin === undefined && this.#beginFailure === undefined)
        return this.#flushWith(req);
      else this.#flush();
    }
    return this.#send(req);
  }

  /**
   * Sends the queued writes and the read that follows them in one round trip: the batch is posted
   * without waiting, the read right behind it (replies come in order). Only inside a transaction
   * already begun: a failed write aborts it, so the read cannot run without it, and the write's
   * failure is the one reported.
   */
  #flushWith(req: BridgeRequest): OkReply {
    const queued = this.#queue;
    this.#queue = [];
    this.#queuedParams = 0;
    const batch: Ahead = { sql: '', params: [], reply: undefined };
    this.#post({ kind: 'batch', items: queued.map((q) => q.item) }, batch);
    let reply: OkReply;
    try {
      reply = this.#send(req);
    } catch (err) {
      if (batch.reply !== undefined && !batch.reply.ok) this.#checked(batch.reply);
      throw err;
    } finally {
      const counts = batch.reply?.ok === true ? batch.reply.counts : undefined;
      queued.forEach((q, i) => {
        q.slot.count = counts?.[i] ?? 0;
      });
    }
    return reply;
  }

  #dropQueue(): void {
    for (const q of this.#queue) q.slot.count = 0;
    this.#queue = [];
    this.#queuedParams = 0;
  }

  /** `req` with the transaction's BEGIN when it was not sent yet (it is then sent with it). */
  #withBegin(req: BridgeRequest): BridgeRequest {
    // after a failed BEGIN only a ROLLBACK goes out (the BEGIN may have run and the lock failed)
    if (this.#beginFailure !== undefined && !(req.kind === 'exec' && req.sql.startsWith('ROLLBACK')))
      throw this.#beginFailure;
    const before = this.#begin;
    if (before === undefined) return req;
    this.#begin = undefined;
    switch (req.kind) {
      case 'exec':
        return { kind: 'exec', sql: `${before}; ${req.sql}` };
      case 'query':
      case 'batch':
        return { ...req, before };
      default:
        this.#send({ kind: 'exec', sql: before });
        return req;
    }
  }

  #send(request: BridgeRequest): OkReply {
    const req = this.#withBegin(request);
    const t = performance.now();
    try {
      this.#post(req, undefined);
      // the replies of reads posted ahead come first
      while (this.#posted.length > 0) this.#receive();
    } finally {
      this.#count(t);
    }
    const reply = this.#last!;
    this.#last = undefined;
    try {
      return this.#checked(reply);
    } catch (err) {
      // a failed BEGIN: nothing more of the transaction may be sent
      if (!reply.ok && reply.error.before === true) this.#beginFailure = err as PgError;
      throw err;
    }
  }

  #count(since: number): void {
    this.#waits.count++;
    this.#waits.ms += performance.now() - since;
  }

  /** Replies this handle waited for so far (round trips: reads, batches of writes, commits) and the time spent waiting, in ms. */
  get waits(): { readonly count: number; readonly ms: number } {
    return { ...this.#waits };
  }

  #post(req: BridgeRequest, entry: Ahead | undefined): void {
    if (!this.#open) throw new PgError('the database connection is closed', undefined, true);
    this.#port.postMessage(req);
    this.#posted.push(entry);
  }

  /** Waits for the next reply and files it with the request it answers (replies come in posting order). */
  #receive(): void {
    // The worker posts its reply, sets the flag, then notifies. The flag is cleared before looking
    // at the port, so a reply posted after the look sets it again and the wait does not sleep; a
    // notify that comes late (the worker was descheduled between setting the flag and notifying)
    // wakes the wait with no reply yet: look and wait again. Between looks, the worker's sign of
    // life (flag[1]): stopped, or silent too long, and no reply will come.
    const started = performance.now();
    const deadline = started + this.#timeoutMs;
    let life = Atomics.load(this.#flag, 1);
    let lifeAt = started;
    for (let now = started; now < deadline; now = performance.now()) {
      Atomics.store(this.#flag, 0, 0);
      const message = receiveMessageOnPort(this.#port);
      if (message !== undefined) {
        this.#file(message.message as BridgeReply);
        return;
      }
      const seen = Atomics.load(this.#flag, 1);
      if (seen === WORKER_STOPPED) this.#giveUp('the PostgreSQL worker stopped');
      if (seen !== life) {
        life = seen;
        lifeAt = now;
      } else if (this.#silentMs > 0 && now - lifeAt >= this.#silentMs) {
        this.#giveUp(
          `the PostgreSQL worker stopped: no sign of life for ${Math.round(this.#silentMs / 1000)} s (out of memory?)`,
        );
      }
      Atomics.wait(this.#flag, 0, 0, Math.min(deadline - now, LOOK_MS));
    }
    this.#giveUp(`PostgreSQL did not answer within ${Math.round(this.#timeoutMs / 1000)} s`);
  }

  /** Files a reply with the request it answers; a stopped worker's last word ends the handle. */
  #file(reply: BridgeReply): void {
    const entry = this.#posted.shift();
    if (entry === undefined) this.#last = reply;
    else {
      entry.reply = reply;
      if (!reply.ok && this.#ahead.includes(entry)) this.#aheadFailure ??= reply;
    }
    if (!reply.ok && reply.stopped === true) this.#end();
    // a read posted ahead that carried the BEGIN, which failed: nothing more of the transaction is sent
    if (entry !== undefined && !reply.ok && reply.error.before === true && this.#beginFailure === undefined) {
      try {
        this.#checked(reply);
      } catch (err) {
        this.#beginFailure = err as PgError;
      }
    }
  }

  /** Ends the handle with this failure: no reply will come (a reply still on the port is the worker's last word). */
  #giveUp(message: string): never {
    const last = receiveMessageOnPort(this.#port);
    const words = last === undefined ? undefined : (last.message as BridgeReply);
    this.#end();
    const said = words !== undefined && !words.ok && words.stopped === true ? words.error.message : message;
    throw new PgError(this.#redact(said), undefined, true);
  }

  /** No more requests: the worker is stopped (or stopping). */
  #end(): void {
    this.#open = false;
    this.#posted = [];
    void this.#worker.terminate();
  }

  /** The reply, or its failure thrown as a PgError (a transaction aborted by a read posted ahead names that read's failure). */
  #checked(reply: BridgeReply): OkReply {
    if (reply.ok) return reply;
    const failure = reply.error.code === '25P02' && this.#aheadFailure?.ok === false ? this.#aheadFailure : reply;
    const error = failure.error;
    const where = error.statement === undefined ? '' : ` (in: ${error.statement})`;
    throw new PgError(this.#redact(error.message + where), error.code, error.connection === true);
  }

  /** The bridge worker's thread id (a worker kept after a close serves the next handle: see `close`). */
  get workerThreadId(): number {
    return this.#worker.threadId;
  }

  /** Whether the handle is open (better-sqlite3's `open`). */
  get open(): boolean {
    return this.#open;
  }

  /** Whether a transaction is running (better-sqlite3's `inTransaction`). */
  get inTransaction(): boolean {
    return this.#depth > 0;
  }

  /** Prepares (translates) a statement; translations are cached by their text. */
  prepare<P extends unknown[] | object = unknown[], R = unknown>(
    source: string,
  ): P extends unknown[] ? PgStatement<P, R> : PgStatement<[P], R> {
    let text = this.#translated.get(source);
    if (text === undefined) {
      text = translateToPostgres(source);
      if (this.#translated.size < 4000) this.#translated.set(source, text);
    }
    // the parameters' type is the caller's declaration, as better-sqlite3's prepare takes it
    return new PgStatement(this, source, text) as P extends unknown[] ? PgStatement<P, R> : PgStatement<[P], R>;
  }

  /** Runs a script (several statements, no parameters) as is: PostgreSQL's SQL, not translated. */
  exec(sql: string): this {
    if (/^\s*VACUUM\s*;?\s*$/i.test(sql)) {
      this.request({ kind: 'exec', sql: 'VACUUM (ANALYZE)' });
      return this;
    }
    this.request({ kind: 'exec', sql });
    return this;
  }

  /** A transaction function, as better-sqlite3's: call it (or `.immediate`) to write, `.deferred` to read. */
  transaction<F extends TxFunction>(fn: F): SqlTransaction<F> {
    const run =
      (mode: TxMode) =>
      (...args: ArgsOf<F>): ReturnType<F> =>
        this.#inTx(mode, () => fn(...args) as ReturnType<F>);
    return Object.assign(run('immediate'), {
      deferred: run('deferred'),
      immediate: run('immediate'),
      exclusive: run('immediate'),
      default: run('immediate'),
    });
  }

  #inTx<R>(mode: TxMode, fn: () => R): R {
    if (this.#depth > 0) {
      const name = `sp${this.#depth}`;
      this.request({ kind: 'exec', sql: `SAVEPOINT ${name}` });
      this.#depth++;
      try {
        const r = fn();
        this.request({ kind: 'exec', sql: `RELEASE SAVEPOINT ${name}` });
        return r;
      } catch (err) {
        this.#quietly(`ROLLBACK TO SAVEPOINT ${name}`);
        this.#quietly(`RELEASE SAVEPOINT ${name}`);
        throw err;
      } finally {
        this.#depth--;
      }
    }
    if (mode === 'deferred') {
      // with the transaction's first request, as a write's: a read of one query is one round trip
      this.#begin = READ_BEGIN;
      this.#reading = true;
    } else {
      // the lock is taken as the transaction begins; both go with the transaction's first request
      // (a write transaction that sends nothing sends no BEGIN either)
      this.#begin = `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK})`;
    }
    this.#depth = 1;
    try {
      const r = fn();
      // the queued writes and the COMMIT go in one round trip
      if (this.#queue.length > 0) this.#flush('COMMIT');
      else if (this.#begin === undefined && this.#reading) this.#commitRead();
      else if (this.#begin === undefined) this.request({ kind: 'exec', sql: 'COMMIT' });
      return r;
    } catch (err) {
      this.#quietly('ROLLBACK');
      throw err;
    } finally {
      this.#depth = 0;
      this.#scope = undefined;
      this.#reading = false;
      this.#begin = undefined;
      this.#beginFailure = undefined;
      this.forgetAhead();
    }
  }

  /**
   * Ends a read transaction without waiting for the COMMIT: it holds no write to confirm, and its
   * reply is taken (and dropped) before the next request's. A read then costs no round trip of
   * its own to end; a COMMIT that fails there (a lost connection) is the next request's failure.
   */
  #commitRead(): void {
    this.#post({ kind: 'exec', sql: 'COMMIT' }, { sql: 'COMMIT', params: [], reply: undefined });
  }

  #quietly(sql: string): void {
    try {
      this.request({ kind: 'exec', sql });
    } catch {
      // the connection may be gone: the server rolls back what it held
    }
  }

  /** Scopes the running transaction's inserted rows to a cluster (`flightrec.cluster_id`). */
  scopeCluster(clusterId: number): void {
    if (this.#depth === 0) throw new PgError('scopeCluster outside a transaction', undefined, false);
    if (this.#scope === clusterId) return;
    // queued with the writes it scopes: it runs before them, in their round trip
    this.#queue.push({
      item: { sql: "SELECT set_config('flightrec.cluster_id', $1, true)", params: [String(clusterId)] },
      slot: { count: -1 },
    });
    this.#queuedParams++;
    this.#scope = clusterId;
  }

  /** Applies (or, read-only, checks) the migrations in `folder`. */
  migrate(folder: string, label: string): { applied: number; supported: number } {
    const reply = this.request({ kind: 'migrate', folder, readonly: this.readonly, label });
    return reply.migrated ?? { applied: 0, supported: 0 };
  }

  /**
   * Closes the connection and stops the worker; or, a server's worker whose connection closed
   * cleanly, keeps it for the next handle of a server in this thread (see `keep`).
   */
  close(): this {
    if (!this.#open) return this;
    let closed = false;
    try {
      this.request({ kind: 'close' });
      closed = true;
    } catch {
      // closing a broken connection: nothing left to do
    }
    this.#open = false;
    if (closed && this.#key !== undefined) {
      keep({ key: this.#key, worker: this.#worker, port: this.#port, flag: this.#flag });
      return this;
    }
    this.#port.close();
    void this.#worker.terminate();
    return this;
  }
}

/** A bridge worker, the port its requests go over and the flag its replies are waited for on. */
interface Bridge {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly flag: Int32Array;
}

/** Starts a bridge worker for `engine`. */
function launchBridge(source: WorkerEntry, engine: BridgeEngine, beatMs: number): Bridge {
  const shared = new SharedArrayBuffer(8);
  const channel = new MessageChannel();
  const init: BridgeInit = { engine, flag: shared, port: channel.port2, beatMs };
  // launched like every thread; its requests go over the port and its replies are waited for on the flag
  const worker = launchThread(source, { workerData: init, transferList: [channel.port2] });
  // a worker that cannot start answers with its failure, one that stops says so (worker-source.ts);
  // the event, which this thread sees only after it stopped waiting, has nothing left to say
  worker.on('error', () => undefined);
  worker.unref();
  channel.port1.unref();
  return { worker, port: channel.port1, flag: new Int32Array(shared) };
}

/** A bridge worker kept after its handle closed: no connection, its modules loaded. */
interface KeptWorker extends Bridge {
  /** the worker's entry (PgSyncDatabase's #key) */
  readonly key: string;
}

/** How long a kept worker waits for a handle before it is stopped. */
const KEPT_MS = 30_000;

/** The worker kept in this thread (one at most), and the timer that stops it. */
let kept: { readonly worker: KeptWorker; readonly timer: NodeJS.Timeout } | undefined;

function stop(w: KeptWorker): void {
  w.port.close();
  void w.worker.terminate();
}

/**
 * Keeps a server's bridge worker whose connection closed cleanly, for the next handle of a server
 * (started by the same entry; it is told the handle's engine) opened in this thread within
 * KEPT_MS: a worker's start (a thread, its modules, pg's) is most of an open's cost, paid again by
 * every open of a process that opens a store more than once (the tests' commands run in-process,
 * `db stats`). The next handle connects anew, as after a lost connection. One worker at most is
 * kept (the newest), never one that holds a connection; it keeps neither the thread nor the
 * process alive.
 */
function keep(w: KeptWorker): void {
  if (kept !== undefined) {
    clearTimeout(kept.timer);
    stop(kept.worker);
  }
  const timer = setTimeout(() => {
    if (kept?.worker === w) kept = undefined;
    stop(w);
  }, KEPT_MS);
  timer.unref();
  kept = { worker: w, timer };
}

/** The worker kept for `key`, taken (undefined when none is, or it stopped meanwhile). */
function takeKept(key: string): KeptWorker | undefined {
  if (kept === undefined || kept.worker.key !== key) return undefined;
  const w = kept.worker;
  clearTimeout(kept.timer);
  kept = undefined;
  // a worker that stopped while kept said so (its last word on the port, the flag marked)
  if (Atomics.load(w.flag, 1) === WORKER_STOPPED || receiveMessageOnPort(w.port) !== undefined) {
    stop(w);
    return undefined;
  }
  return w;
}
