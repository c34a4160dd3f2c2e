/**
 * Writes the collector's records off its event loop: entry point of the store thread (see
 * store-thread.ts for the caller). It opens its own connection to the database (a PostgreSQL
 * server), runs the same write queue as the collector's thread would (store-queue.ts: time
 * order, held records while the store refuses writes, lost runs recorded), and answers every
 * request with the queue's counters, the lines it printed and, once, the error that stopped it.
 */
import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { openRecordingStore, type RecordingStore } from '../db/write/recording-store.ts';
import { StoreLostError, type PollRecord } from '../db/poll-record.ts';
import { restoreJsonNumbers, type ValuePath } from '../collector/record-transfer.ts';
import { StoreQueue, type StoreCounters } from '../collector/store-queue.ts';

/** How the thread opens its store (workerData). */
export interface StoreWorkerInit {
  /** the database: a PostgreSQL URL */
  readonly database: string;
  /** the file holding the password, when the URL has none */
  readonly passwordFile?: string;
  readonly keepRawAnswers: boolean;
  readonly maxHeldBytes: number;
}

/** What the thread receives. */
export type StoreWorkerRequest =
  /** `numbers`: where the record's JsonNumbers were (record-transfer.ts) */
  | { readonly type: 'push'; readonly id: number; readonly record: PollRecord; readonly numbers: readonly ValuePath[] }
  | { readonly type: 'flush'; readonly id: number }
  | { readonly type: 'close'; readonly id: number };

/** What the thread answers, per request. */
export interface StoreWorkerReply {
  readonly id: number;
  readonly counters: StoreCounters;
  readonly unwritten: number;
  /** lines to print, in order */
  readonly lines: readonly string[];
  /** the error that stopped the writes (sent with every reply once it happened) */
  readonly fatal?: string;
}

const port = parentPort;
const init = workerData as StoreWorkerInit;
const counters: StoreCounters = { unwritten: 0, heldBytes: 0, dropped: 0, lostRecorded: 0, unstorable: 0, reopened: 0 };
let lines: string[] = [];
let fatal: string | undefined;
let store: RecordingStore | undefined;
let queue: StoreQueue | undefined;
/** records received while no queue could be made (the database never opened): never written */
let unqueued = 0;

/** The queue, its store opened at the first request; undefined (and `fatal` set) when it cannot be. */
function queueOf(): StoreQueue | undefined {
  if (queue !== undefined || fatal !== undefined) return queue;
  try {
    const s = openRecordingStore(init.database, {
      keepRawAnswers: init.keepRawAnswers,
      ...(init.passwordFile === undefined ? {} : { passwordFile: init.passwordFile }),
    });
    store = s;
    queue = new StoreQueue({
      writer: s,
      counters,
      line: (text) => lines.push(text),
      maxHeldBytes: init.maxHeldBytes,
      keepRawAnswers: init.keepRawAnswers,
      roundId: randomUUID,
      onFatal: (err) => {
        fatal = err.message;
      },
    });
  } catch (err) {
    fatal = `the store thread cannot open the database: ${err instanceof Error ? err.message : String(err)}`;
    lines.push(`error: ${fatal}; recording stopped`);
  }
  return queue;
}

function answer(req: StoreWorkerRequest): void {
  if (req.type === 'close') {
    try {
      store?.close();
    } catch (err) {
      lines.push(`error: closing the database failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    store = undefined;
  } else {
    const q = queueOf();
    if (q === undefined && req.type === 'push') unqueued++;
    if (q !== undefined) {
      try {
        if (req.type === 'push') {
          restoreJsonNumbers(req.record, req.numbers);
          q.push(req.record);
        } else q.flush();
      } catch (err) {
        // the queue catches the store's errors; anything else stops the writes, said once
        fatal ??= new StoreLostError(`the store thread failed: ${err instanceof Error ? err.message : String(err)}`)
          .message;
      }
    }
  }
  const reply: StoreWorkerReply = {
    id: req.id,
    counters: { ...counters },
    unwritten: (queue?.unwritten ?? 0) + unqueued,
    lines,
    ...(fatal === undefined ? {} : { fatal }),
  };
  lines = [];
  port?.postMessage(reply);
  if (req.type === 'close') port?.close();
}

port?.on('message', answer);
