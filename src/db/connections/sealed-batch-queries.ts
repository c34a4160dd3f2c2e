/**
 * The two statements every reader of a sealed batch of connection frames asks: its chunks, in
 * entity order, and its frame count (the stride of the columns inside each chunk). Shared by the
 * lean frame stream (narrow-frames.ts) and the counter frames of trends (read/counter-frames.ts).
 */
import type { SqlSession } from '../sql-session.ts';
import type { connChunk } from '../schema/schema-custom.ts';
import type { connBatch } from '../schema/schema.ts';
import type { RowOf } from '../schema/table-rows.ts';

/** The prepared statements reading a sealed batch: `chunks(batch)` and `frames(batch)`. */
export function sealedBatchQueries(sqlite: SqlSession) {
  return {
    chunks: sqlite
      .prepare<[number], RowOf<typeof connChunk>['data']>(
        'SELECT data FROM conn_chunk WHERE batch = ? ORDER BY first_entity',
      )
      .pluck(),
    frames: sqlite
      .prepare<[number], RowOf<typeof connBatch>['frames']>('SELECT frames FROM conn_batch WHERE id = ?')
      .pluck(),
  };
}
