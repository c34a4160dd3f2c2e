/**
 * PASSIVE WAL checkpoints of a SQLite file on a connection of another thread, so that the
 * checkpoint's writes and fsyncs never hold up the caller's event loop (the collector's polls).
 * In WAL mode a checkpoint from another connection runs while the caller's connection writes.
 * One small thread per process, started at the first request, never keeping the process alive;
 * it opens the file, checkpoints and closes it again for each request (no connection stays open
 * between requests: a store that closes or replaces its file is never held up by it). At most one
 * checkpoint is in flight: a request meanwhile, or one whose answer takes longer than the time
 * limit, settles at once as skipped, and a later one does the work. Nothing here rejects.
 */
import { createRequire } from 'node:module';
import { RequestChannel } from '../../threads/channel.ts';
import { launchThread } from '../../threads/launch.ts';
import type { BackgroundCheckpoint } from './store-engine.ts';

interface Request {
  readonly id: number;
  readonly path: string;
}

/** A thread's answer to a checkpoint request: the WAL's frames, those written back and its time there, or why not. */
export type CheckpointReply =
  | {
      readonly id: number;
      readonly ok: true;
      readonly frames: number;
      readonly checkpointed: number;
      readonly ms: number;
    }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** How long a caller waits for the thread's answer before it is told `skipped` (the checkpoint goes on). */
export const CHECKPOINT_WAIT_MS = 30_000;

/**
 * The thread's code (CommonJS, evaluated: it needs no bundled entry of its own). It loads the
 * installed better-sqlite3 by the path the caller resolved, and waits for no lock (PASSIVE never
 * calls the busy handler; the open waits at most a second for the WAL index).
 */
const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const Database = require(workerData.sqlite);
parentPort.on('message', ({ id, path }) => {
  const t0 = performance.now();
  try {
    const db = new Database(path, { fileMustExist: true, timeout: 1000 });
    let r;
    try {
      [r] = db.pragma('wal_checkpoint(PASSIVE)');
    } finally {
      // closed before the answer: when the caller goes on, this thread holds nothing of the file
      db.close();
    }
    parentPort.postMessage({ id, ok: true, frames: Math.max(0, r.log), checkpointed: Math.max(0, r.checkpointed), ms: performance.now() - t0 });
  } catch (err) {
    parentPort.postMessage({ id, ok: false, message: err instanceof Error ? err.message : String(err) });
  }
});
`;

let channel: RequestChannel<Request, CheckpointReply> | undefined;
let inFlight = false;

function start(): RequestChannel<Request, CheckpointReply> {
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = launchThread(
    { code: THREAD_CODE, eval: true, execArgv: [] },
    // it allocates a few objects per request: a small heap
    { workerData: { sqlite }, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 } },
  );
  const c: RequestChannel<Request, CheckpointReply> = new RequestChannel(worker, {
    keepAlive: 'busy',
    onLost: () => {
      if (channel === c) channel = undefined;
    },
  });
  return c;
}

/**
 * A PASSIVE checkpoint of the SQLite file `path` in the checkpoint thread; settles (never rejects)
 * with what it did, or `ok: false` with why not (another still in flight, the time limit, a failure).
 */
export async function checkpointInThread(path: string, waitMs = CHECKPOINT_WAIT_MS): Promise<BackgroundCheckpoint> {
  if (inFlight) return { ok: false, reason: 'skipped: a checkpoint is still running' };
  inFlight = true;
  try {
    channel ??= start();
    // past the limit the caller goes on; the next request is skipped until this one has answered
    return await checkpointAnswer(
      channel.request((id) => ({ id, path })),
      waitMs,
      () => {
        inFlight = false;
      },
    );
  } catch (err) {
    inFlight = false;
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * What a thread's checkpoint did, from its `reply`: settles (never rejects) with it, or as skipped
 * when it has not answered within `waitMs` (the checkpoint goes on there); `answered` is called
 * once the thread has answered or is gone, even past the limit.
 */
export async function checkpointAnswer(
  reply: Promise<CheckpointReply>,
  waitMs: number,
  answered: () => void = () => undefined,
): Promise<BackgroundCheckpoint> {
  const answer = reply.then(
    (r): BackgroundCheckpoint =>
      r.ok ? { ok: true, frames: r.frames, checkpointed: r.checkpointed, ms: r.ms } : { ok: false, reason: r.message },
    (err: unknown): BackgroundCheckpoint => ({ ok: false, reason: err instanceof Error ? err.message : String(err) }),
  );
  void answer.finally(answered);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<BackgroundCheckpoint>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `skipped: no answer within ${waitMs} ms` }), waitMs);
    timer.unref();
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}
