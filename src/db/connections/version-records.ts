/**
 * Fetching the packed records of connection versions by id (two blobs: the version records and,
 * in lockstep, their entity records), for the decoders of full versions (parts.ts) and of the
 * narrow versions of counter trends (counter-versions.ts): one query, or on PostgreSQL, when
 * there are many, pieces posted together so that each is decoded while the server reads the next.
 */
import type { SqlStatement } from '../sql-session.ts';
import type { EngineSession, StoreSession } from '../engines/store-engine.ts';
import type { Resolver } from '../encoding/dictionary.ts';
import { CONNECTION_LAYOUTS } from './layouts.ts';

/** The version records of a query and their entity records, row i of both together (null: no record). */
export type VersionBlobs = [Buffer | null, Buffer | null];

/** Decodes one query's blobs; `fetched` is called once the records (and the dictionary) are read. */
export type DecodeRecords = (blobs: VersionBlobs | undefined, fetched?: () => void) => void;

/** Fewest version records per piece of a load posted ahead (PostgreSQL), and most pieces. */
const PIECE = 2048;
const MAX_PIECES = 6;

/** The statement reading the records of a JSON list of version ids, in the store's layout. */
export function recordsByIdsStatement(store: StoreSession): SqlStatement<[string], VersionBlobs> {
  const layout = CONNECTION_LAYOUTS[store.engine.connectionLayout];
  return store.sqlite.prepare<[string], VersionBlobs>(layout.partsByIdsSql).raw();
}

/**
 * Reads the records of `wanted` and hands them to `decode`, in id order: in one query; on
 * PostgreSQL, when there are many, in pieces posted together (the first the smallest, so that
 * decoding starts sooner).
 */
export function loadVersionRecords(
  engine: EngineSession,
  byIds: SqlStatement<[string], VersionBlobs>,
  resolver: Resolver,
  wanted: readonly number[],
  decode: DecodeRecords,
  fetched?: () => void,
): void {
  // in id order: the records are read in b-tree order, each page once (a frame lists them in answer order)
  const ids = isAscending(wanted) ? wanted : [...wanted].sort((a, b) => a - b);
  const k = Math.min(MAX_PIECES, Math.floor(ids.length / PIECE));
  if (k >= 2 && engine.prefetches) {
    const first = PIECE / 2;
    const size = Math.ceil((ids.length - first) / (k - 1));
    const pieces = [JSON.stringify(ids.slice(0, first))];
    for (let i = first; i < ids.length; i += size) pieces.push(JSON.stringify(ids.slice(i, i + size)));
    // what decoding does for this many records, before the pieces are posted (the dictionary would wait behind them)
    resolver.preload();
    if (engine.prefetch(byIds, pieces[0])) {
      for (let i = 1; i < pieces.length; i++) engine.prefetch(byIds, pieces[i]);
      fetched?.();
      for (const piece of pieces) decode(byIds.get(piece), undefined);
      return;
    }
  }
  decode(byIds.get(JSON.stringify(ids)), fetched);
}

function isAscending(ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i]! < ids[i - 1]!) return false;
  return true;
}
