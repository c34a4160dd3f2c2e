/**
 * The one place a worker thread is started: its entry found (worker-entry.ts: bundled, from
 * source through tsx, or bundled once per test run) and `new Worker` called with the options
 * that entry needs. Every thread of flightrec starts here: the store, rollup, timeline and alert
 * threads through a RequestChannel (channel.ts), the PostgreSQL bridge with its own synchronous
 * protocol over a SharedArrayBuffer.
 */
import type { ResourceLimits, TransferListItem } from 'node:worker_threads';
import { Worker } from 'node:worker_threads';
import { threadExecArgv, workerEntry, type WorkerEntry } from './worker-entry.ts';

/** Where a worker's entry is, relative to the module that starts it, and what is said when it is not there. */
export interface ThreadSource {
  /** the caller's import.meta.url */
  readonly callerUrl: string;
  /** the places of the bundled entry, relative to the caller (dist/chunks/ first, then dist/) */
  readonly bundled: readonly string[];
  /** the TypeScript entry, relative to the caller */
  readonly sourceFile: string;
  /** the error's message when no entry is found (a damaged or incomplete installation) */
  readonly missing: string;
}

/** How a worker is started, beyond its entry. */
export interface LaunchOptions {
  readonly workerData?: unknown;
  readonly transferList?: readonly TransferListItem[];
  /** caps of the thread's V8 heap (a thread that works in bursts need not keep a large young generation) */
  readonly resourceLimits?: ResourceLimits;
}

/** The entry of a worker; throws an Error with `source.missing` when there is none. */
export function findThread(source: ThreadSource): WorkerEntry {
  const entry = workerEntry(source.callerUrl, source.bundled, source.sourceFile);
  if (entry === undefined) throw new Error(source.missing);
  return entry;
}

/**
 * Starts a worker from `source` (found as findThread does) or an entry already found (a bootstrap
 * wrapped around it). A process started with options a thread cannot take (V8 flags such as
 * `node --max-old-space-size=4096 flightrec …`, which Node refuses in a worker's execArgv) starts
 * its threads with the module-loading options alone (threadExecArgv), not with an error.
 */
export function launchThread(source: ThreadSource | WorkerEntry, opts: LaunchOptions = {}): Worker {
  const entry = 'callerUrl' in source ? findThread(source) : source;
  const start = (execArgv: string[]): Worker =>
    new Worker(entry.code, {
      eval: entry.eval,
      execArgv,
      ...(opts.workerData === undefined ? {} : { workerData: opts.workerData }),
      ...(opts.transferList === undefined ? {} : { transferList: [...opts.transferList] }),
      ...(opts.resourceLimits === undefined ? {} : { resourceLimits: opts.resourceLimits }),
    });
  try {
    return start(entry.execArgv);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') throw err;
    return start(threadExecArgv(entry.execArgv));
  }
}
