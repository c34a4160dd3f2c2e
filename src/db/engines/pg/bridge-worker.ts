/**
 * The worker thread of the synchronous PostgreSQL bridge: it owns one connection (a client checked
 * out of a `pg` Pool, or an in-process PGlite), runs each request the calling thread posts, posts
 * the reply and raises the shared flag the caller sleeps on. A connection that fails is dropped
 * and the next request connects anew.
 */
import { workerData } from 'node:worker_threads';
import type {
  BatchItem,
  BridgeEngine,
  BridgeError,
  BridgeInit,
  BridgeReply,
  BridgeRequest,
} from './bridge-protocol.ts';
import { combineInserts, mergeInserts } from './merge-inserts.ts';
import { connectEngine, type EngineConnection } from './engine-connection.ts';

const init = workerData as BridgeInit;
const flag = new Int32Array(init.flag);
let connection: Promise<EngineConnection> | undefined;
/** the engine of the handle served now (a kept worker is told its next handle's: sync-database.ts) */
let engine: BridgeEngine = init.engine;

function connect(): Promise<EngineConnection> {
  connection ??= connectEngine(engine).catch((err: unknown) => {
    connection = undefined;
    throw err;
  });
  return connection;
}

function errorOf(err: unknown, connectionFailed: boolean): BridgeError {
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  const detail = (e as { detail?: unknown }).detail;
  const statement = (e as { statement?: unknown }).statement;
  return {
    message: e.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof detail === 'string' ? { detail } : {}),
    ...(typeof statement === 'string' ? { statement: statement.slice(0, 300) } : {}),
    ...((e as { before?: unknown }).before === true ? { before: true } : {}),
    ...(connectionFailed ? { connection: true } : {}),
  };
}

/**
 * Runs a batch in order, with its `then` (COMMIT), in one pipeline: consecutive single-row
 * INSERTs of one statement as multi-row INSERTs, consecutive plain INSERTs as one statement
 * (src/db/engines/pg/merge-inserts.ts). The count of each queued statement: the rows it changed (1 for
 * each row of a merged INSERT).
 */
async function runBatch(
  conn: EngineConnection,
  items: readonly BatchItem[],
  then?: string,
  before?: string,
): Promise<number[]> {
  const statements = combineInserts(mergeInserts(items));
  let results;
  try {
    results = await conn.pipeline(statements, then, before);
  } catch (err) {
    const index = (err as { index?: unknown }).index;
    const statement = typeof index === 'number' ? statements[index] : undefined;
    if (err instanceof Error && statement !== undefined)
      Object.assign(err, { statement: statement.parts.map((p) => p.source).join('; ') });
    throw err;
  }
  const counts: number[] = [];
  statements.forEach((statement, s) => {
    const r = results[s]!;
    const combined = statement.parts.length > 1 ? r.rows[0] : undefined;
    statement.parts.forEach((part, k) => {
      const changed = combined === undefined ? r.rowCount : Number(combined[k]);
      for (let i = 0; i < part.rows; i++) counts.push(part.rows === 1 ? changed : 1);
    });
  });
  return counts;
}

async function answer(req: BridgeRequest): Promise<BridgeReply> {
  if (req.kind === 'engine') {
    // a kept worker holds no connection (its last handle closed it); were one left, it goes now
    const left = connection;
    connection = undefined;
    engine = req.engine;
    await left?.then((c) => c.close()).catch(() => undefined);
    return { ok: true, values: [], length: 0, fields: [], rowCount: 0 };
  }
  let conn: EngineConnection;
  try {
    conn = await connect();
  } catch (err) {
    return { ok: false, error: errorOf(err, true) };
  }
  try {
    switch (req.kind) {
      case 'query': {
        const { rows, fields, rowCount } =
          req.before === undefined
            ? await conn.query(req.sql, req.params)
            : (await conn.pipeline([{ sql: req.sql, params: req.params }], undefined, req.before))[0]!;
        return { ok: true, values: rows.length === 1 ? rows[0]! : rows.flat(), length: rows.length, fields, rowCount };
      }
      case 'batch': {
        const counts = await runBatch(conn, req.items, req.then, req.before);
        return { ok: true, values: [], length: 0, fields: [], rowCount: 0, counts };
      }
      case 'exec':
        await conn.exec(req.sql);
        return { ok: true, values: [], length: 0, fields: [], rowCount: 0 };
      case 'migrate':
        return {
          ok: true,
          values: [],
          length: 0,
          fields: [],
          rowCount: 0,
          migrated: await conn.migrate(req.folder, req.readonly, req.label),
        };
      case 'close':
        connection = undefined;
        await conn.close();
        return { ok: true, values: [], length: 0, fields: [], rowCount: 0 };
    }
  } catch (err) {
    const broken = conn.broken();
    if (broken) {
      connection = undefined;
      await conn.close().catch(() => undefined);
    }
    return { ok: false, error: errorOf(err, broken) };
  }
}

// one request at a time, in the order posted (reads posted ahead wait for the one before them)
let previous: Promise<void> = Promise.resolve();
init.port.on('message', (req: BridgeRequest) => {
  previous = previous.then(() =>
    answer(req).then((reply) => {
      init.port.postMessage(reply);
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      // after a close the worker waits for the next handle's requests, or to be stopped (sync-database.ts)
    }),
  );
});
