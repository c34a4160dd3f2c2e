/**
 * The messages between the synchronous PostgreSQL bridge (the calling thread) and its worker
 * thread (which owns the connection). The caller posts a request, then sleeps on a shared flag
 * that the worker raises once it has posted the reply.
 */
import type { MessagePort } from 'node:worker_threads';
import type { PgPoolConfigData } from './pool-config.ts';

/** Which engine the worker connects to. */
export type BridgeEngine =
  { readonly kind: 'pg'; readonly config: PgPoolConfigData } | { readonly kind: 'pglite'; readonly dir: string };

/** What the worker is started with (its workerData). */
export interface BridgeInit {
  /** the engine of its first handle (a kept worker is told the next one's: the `engine` request) */
  readonly engine: BridgeEngine;
  /**
   * Int32Array over it: [0] is 1 while a reply waits for the caller; [1] is the worker's sign of
   * life: a count it raises every `beatMs` (when beatMs > 0), and WORKER_STOPPED once it exits
   */
  readonly flag: SharedArrayBuffer;
  readonly port: MessagePort;
  /** how often the worker raises its count (0: never, for an engine that runs in the worker's own thread) */
  readonly beatMs: number;
}

/** flag[1] once the worker thread exits (thrown, rejected, exited): no reply will come. */
export const WORKER_STOPPED = -1;

/**
 * One request. `query` runs one statement with bound parameters; `exec` a script without any.
 * `before`: a script (the BEGIN of a write transaction) run first, in the same round trip.
 */
export type BridgeRequest =
  | { readonly kind: 'query'; readonly sql: string; readonly params: readonly unknown[]; readonly before?: string }
  | { readonly kind: 'exec'; readonly sql: string }
  /**
   * writes whose results nobody read yet, in order; the first failure stops the rest. `then`: a
   * script run after them in the same round trip (COMMIT), only when they all succeeded
   */
  | { readonly kind: 'batch'; readonly items: readonly BatchItem[]; readonly then?: string; readonly before?: string }
  | { readonly kind: 'migrate'; readonly folder: string; readonly readonly: boolean; readonly label: string }
  /** the engine of the handle a kept worker serves from now on (it holds no connection); it connects at the next request */
  | { readonly kind: 'engine'; readonly engine: BridgeEngine }
  | { readonly kind: 'close' };

/** One statement of a batch. */
export interface BatchItem {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** A column of a result: its name and PostgreSQL type oid. */
export interface BridgeField {
  readonly name: string;
  readonly type: number;
}

/** What a driver error carries that a message may show (never the connection string). */
export interface BridgeError {
  readonly message: string;
  readonly code?: string;
  readonly detail?: string;
  /** true when the connection itself failed (refused, reset, authentication), not the statement */
  readonly connection?: boolean;
  /** `batch`: the statement that failed */
  readonly statement?: string;
  /** the request's `before` script failed (what followed it did not run in its transaction) */
  readonly before?: boolean;
}

/** One reply. */
export type BridgeReply =
  | {
      readonly ok: true;
      /** the rows' values one after the other, row by row (`fields.length` a row): one flat list clones faster than a list per row */
      readonly values: readonly unknown[];
      /** how many rows */
      readonly length: number;
      readonly fields: readonly BridgeField[];
      readonly rowCount: number;
      /** `batch`: the rows each statement changed */
      readonly counts?: readonly number[];
      /** what `migrate` found and did */
      readonly migrated?: { readonly applied: number; readonly supported: number };
    }
  /** `stopped`: the worker's last word as it exits; nothing more will be answered */
  | { readonly ok: false; readonly error: BridgeError; readonly stopped?: true };

/** PostgreSQL type oids the bridge converts. */
export const PG_TYPE = { bool: 16, bytea: 17, int8: 20, int2: 21, int4: 23, text: 25, numeric: 1700 } as const;

/**
 * The name of a bytea column that travels as base64 text (src/db/engines/pg/translate.ts); the worker
 * turns it back into bytes, typed bytea, before it replies.
 */
export const BASE64_COLUMN = 'flightrec_base64';
