/**
 * Runs rollUp in a worker thread (rollup-worker.ts), so that summarising raw history never holds
 * up the collector's event loop: one job at a time, the thread started at the first job and reused,
 * stopped by `close()`. From the bundle the worker is its own entry file; from source the
 * TypeScript file runs through tsx's loader (as the TUI's timeline worker does). While it runs, it
 * also takes retention's checkpoint of a file (`checkpoint()`): the thread and its connection are
 * there already, and a thread of its own for it would hold about 17 MB more (docs/performance.md, Soak).
 */
import {
  checkpointAnswer,
  CHECKPOINT_WAIT_MS,
  isDbUrl,
  type BackgroundCheckpoint,
  type CheckpointReply,
} from '../../db/index.ts';
import { RequestChannel } from '../../threads/channel.ts';
import { launchThread } from '../../threads/launch.ts';
import type { Thresholds } from '../timeline/thresholds.ts';
import type { CheckpointJob, RollUpJob, RollUpWorkerReply, RollUpWorkerRequest } from './rollup-worker.ts';

/** What a RollUpThread is built from. */
export interface RollUpThreadOptions {
  /** the database the worker opens (its own connection): a file or a PostgreSQL URL */
  readonly database: string;
  /** PostgreSQL: the file holding the password, when the URL has none */
  readonly passwordFile?: string;
  readonly thresholds: Thresholds;
  /** how long `close()` lets a job reach its next bucket before the thread is terminated (default 500 ms) */
  readonly stopGraceMs?: number;
  /** told of the damaged raw history a job left out of the rollups (RollUpOptions.onDamage) */
  readonly onDamage?: (message: string) => void;
}

/**
 * The rollup worker's young generation, MB. By default V8 lets it grow to tens of MB (semi-spaces
 * of up to 16 MB) in a thread that allocates fast, and keeps it between jobs; rollUp's garbage is
 * per bucket, so a small one costs more scavenges and saves that memory (soak: docs/performance.md).
 */
const ROLLUP_YOUNG_MB = 8;

/** The channel to the rollup worker. */
type RollUpChannel = RequestChannel<RollUpJob | CheckpointJob, RollUpWorkerReply | CheckpointReply>;

/** rollUp(cluster, untilNs) in a worker thread; a failure (or a stop) rejects with an Error naming it. */
export class RollUpThread {
  readonly #o: RollUpThreadOptions;
  #channel: RollUpChannel | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(opts: RollUpThreadOptions) {
    this.#o = opts;
  }

  /** Summarises `cluster`'s raw history up to `untilNs` in the worker; jobs run one after the other. */
  run(cluster: string, untilNs: bigint): Promise<void> {
    const p = this.#queue.then(() => this.#runNow(cluster, untilNs));
    this.#queue = p.catch(() => undefined);
    return p;
  }

  /**
   * A PASSIVE WAL checkpoint of the database file on the worker's connection, after the jobs
   * before it; undefined when the worker is not running (no thread is started for a checkpoint)
   * or the database is no file. Settles, never rejecting; unanswered after `waitMs` it settles as
   * skipped (the checkpoint goes on in the worker, and the next job waits for it there).
   */
  checkpoint(waitMs = CHECKPOINT_WAIT_MS): Promise<BackgroundCheckpoint> | undefined {
    if (this.#channel === undefined || this.#closed || isDbUrl(this.#o.database)) return undefined;
    const p = this.#queue.then(() => this.#checkpointNow(waitMs));
    this.#queue = p;
    return p;
  }

  async #checkpointNow(waitMs: number): Promise<BackgroundCheckpoint> {
    const channel = this.#channel;
    if (channel === undefined || this.#closed)
      return { ok: false, reason: 'skipped: the rollup thread is not running' };
    // the reply to a checkpoint's id is a checkpoint's reply
    const reply = channel.request((id) => ({ type: 'checkpoint', id, database: this.#o.database }));
    return checkpointAnswer(reply as Promise<CheckpointReply>, waitMs);
  }

  async #runNow(cluster: string, untilNs: bigint): Promise<void> {
    if (this.#closed) throw new Error(STOPPED);
    // a job keeps the process alive (a virtual-time recording awaits it with nothing else to do): keepAlive 'busy'
    const channel = this.#channel ?? this.#start();
    let m: RollUpWorkerReply;
    try {
      // the reply to a job's id is a job's reply
      m = (await channel.request((id) => ({
        type: 'run',
        id,
        database: this.#o.database,
        ...(this.#o.passwordFile === undefined ? {} : { passwordFile: this.#o.passwordFile }),
        cluster,
        untilNs,
        thresholds: this.#o.thresholds,
      }))) as RollUpWorkerReply;
    } catch (err) {
      throw this.#closed ? new Error(STOPPED) : err;
    }
    if (!m.ok) throw new Error(`rollups: ${m.message}`);
    for (const message of m.damaged ?? []) this.#o.onDamage?.(message);
  }

  #start(): RollUpChannel {
    const worker = launchThread(
      {
        callerUrl: import.meta.url,
        bundled: ['../rollup-worker.js', './rollup-worker.js'],
        sourceFile: './rollup-worker.ts',
        missing: 'rollups: the rollup worker (rollup-worker.js) was not found',
      },
      { resourceLimits: { maxYoungGenerationSizeMb: ROLLUP_YOUNG_MB } },
    );
    // the worker is gone: the job in progress fails, the next one starts a new worker
    const channel: RollUpChannel = new RequestChannel(worker, {
      keepAlive: 'busy',
      failed: (err) => `rollups: the worker failed: ${err.message}`,
      exited: (code) => `rollups: the worker exited (code ${code})`,
      onLost: () => {
        if (this.#channel === channel) this.#channel = undefined;
      },
    });
    this.#channel = channel;
    return channel;
  }

  /**
   * Stops: a job in progress rejects at once, the worker closes its connection at its next bucket
   * (transactions are per batch of buckets, and rollup_progress lets the next run resume) and
   * ends; past the grace period it is terminated (a transaction cut short rolls back).
   * Settles when the thread has ended (every call: the first one stops it).
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    const channel = this.#channel;
    this.#channel = undefined;
    await channel?.close({ type: 'stop' } satisfies RollUpWorkerRequest, this.#o.stopGraceMs ?? 500);
  }
}

/** Why a job fails once the rollups are stopped. */
const STOPPED = 'rollups stopped (the collector is shutting down)';
