/** Text renderings of a query: the table view of its rows (`table`, `wide`), and the one-line context note. */
import { sanitizeCell } from '../../api/safe-text.ts';
import type { PollRow } from '../../api/schema/resources.ts';
import { tableView, type TableView } from '../columns/index.ts';
import { formatTime } from '../format-units.ts';
import type { QueryResult } from '../query.ts';
import { renderTable, renderTableChunks, renderTablePieces, type TableOptions } from './table.ts';

/** The table view of a query result; range queries get a TIME column, ages count from each row's poll. */
export function queryView(result: QueryResult, wide: boolean): TableView {
  const items = result.rows.map((row, i) => ({ row, observedAt: observedAt(result, row, i) }));
  return tableView(result.resource, items, { wide, timeColumn: result.samples !== undefined });
}

function observedAt(result: QueryResult, row: object, i: number): bigint {
  if (result.resource === 'polls') return (row as PollRow).startTime;
  return result.samples?.[i]?.poll.startTime ?? result.poll?.startTime ?? result.at ?? 0n;
}

/** Renders a query result as a text table. */
export function renderQueryTable(result: QueryResult, opts: TableOptions & { wide: boolean }): string {
  return renderTable(queryView(result, opts.wide), opts);
}

/** renderQueryTable's text in pieces, in order (renderTablePieces). */
export function renderQueryTablePieces(
  result: QueryResult,
  opts: TableOptions & { wide: boolean },
): Generator<string, void, undefined> {
  return renderTablePieces(queryView(result, opts.wide), opts);
}

/** renderQueryTable's text as UTF-8 bytes in chunks of whole lines (renderTableChunks). */
export function renderQueryTableChunks(
  result: QueryResult,
  opts: TableOptions & { wide: boolean },
): Generator<Buffer, void, undefined> {
  return renderTableChunks(queryView(result, opts.wide), opts);
}

/** A one-line description of what a query answered from, for stderr or a heading. */
export function queryNote(result: QueryResult): string {
  const shown =
    result.rows.length === result.total ? `${result.total} rows` : `${result.rows.length} of ${result.total} rows`;
  const of = result.source === undefined ? '' : ` (raw samples of ${result.source})`;
  if (result.mode === 'range')
    return `${result.resource}${of} from ${formatTime(result.since!)} to ${formatTime(result.until!)}: ${shown}`;
  if (result.resource === 'polls') return `polls up to ${formatTime(result.at!)}: ${shown}`;
  if (result.poll === undefined)
    return `${result.resource}${of} at ${formatTime(result.at!)}: unobserved (no successful poll at or before it)`;
  const answered = `${result.resource}${of} at ${formatTime(result.at!)}: poll ${result.poll.id} at ${formatTime(result.poll.startTime)}, ${shown}`;
  const n = result.failures ?? 0;
  if (n === 0) return answered;
  const last =
    result.lastFailure === undefined
      ? ''
      : ` (last: ${sanitizeCell(result.lastFailure.outcome)} at ${formatTime(result.lastFailure.startTime)})`;
  return `${answered}; ${n} later poll${n === 1 ? '' : 's'} failed${last}, so the state at that instant is unknown`;
}
