/** Output formats of query and diff, and the dispatch from a format name to its renderer. */
import type { DiffResult } from '../diff.ts';
import type { QueryResult } from '../query.ts';
import { renderQueryCsvPieces } from './csv.ts';
import { renderDiffText } from './diff-text.ts';
import {
  diffToJson,
  formatJson,
  queryToJson,
  queryToJsonChunks,
  queryToJsonPieces,
  queryToNdjsonChunks,
  queryToNdjsonPieces,
} from './json.ts';
import { renderDiffMarkdown, renderQueryMarkdown } from './markdown.ts';
import { renderQueryTableChunks, renderQueryTablePieces } from './query-text.ts';
import { renderYaml } from './yaml.ts';

export { paint, type Style } from './color.ts';
export { renderTable, displayWidth, truncate, type TableOptions } from './table.ts';
export { csvCell, csvLine, csvHeader, renderQueryCsv } from './csv.ts';
export { formatJson, encodeRow, queryToJson, queryToNdjson, diffToJson } from './json.ts';
export { renderYaml } from './yaml.ts';
export { renderDiffText } from './diff-text.ts';
export { renderDiffMarkdown, renderQueryMarkdown, mdTable, mdText, mdCode } from './markdown.ts';
export { queryView, queryNote, renderQueryTable } from './query-text.ts';
export { freshnessToJson, staleNote } from './freshness.ts';
export { formatValue, formatChange, formatTotal, unobservedReason } from './values.ts';

/** Output formats of `query`. */
export const QUERY_FORMATS = ['table', 'wide', 'json', 'ndjson', 'csv', 'yaml', 'md'] as const;
/** A query output format. */
export type QueryFormat = (typeof QUERY_FORMATS)[number];
/** Output formats of `diff` (`table` and `wide` are the text rendering). */
export const DIFF_FORMATS = ['table', 'wide', 'json', 'yaml', 'md'] as const;
/** A diff output format. */
export type DiffFormat = (typeof DIFF_FORMATS)[number];

/** How text output may look. */
export interface RenderOptions {
  /** escape sequences allowed; never an escape byte when false */
  readonly color: boolean;
  /** terminal width for truncating tables; none when undefined */
  readonly width?: number;
}

/** Renders a query result in a format. */
export function renderQuery(result: QueryResult, format: QueryFormat, opts: RenderOptions): string {
  return [...renderQueryPieces(result, format, opts)].join('');
}

/**
 * renderQuery's text in pieces, in order, each made when asked for: joined, they are
 * renderQuery's text, so a command can write each piece as it comes instead of one long string.
 */
export function* renderQueryPieces(
  result: QueryResult,
  format: QueryFormat,
  opts: RenderOptions,
): Generator<string, void, undefined> {
  switch (format) {
    case 'table':
    case 'wide':
      yield* renderQueryTablePieces(result, { ...opts, wide: format === 'wide' });
      return;
    case 'json':
      yield* queryToJsonPieces(result);
      yield '\n';
      return;
    case 'ndjson':
      yield* queryToNdjsonPieces(result);
      return;
    case 'csv':
      yield* renderQueryCsvPieces(result);
      return;
    case 'yaml':
      yield renderYaml(queryToJson(result));
      return;
    case 'md':
      yield renderQueryMarkdown(result, false);
      return;
  }
}

/**
 * renderQueryPieces for a writer of bytes: JSON, ndjson and the tables as UTF-8 chunks of about
 * 64 KB (never a string to convert), the other formats as renderQueryPieces gives them. Decoded and joined,
 * they are renderQuery's text.
 */
export function* renderQueryChunks(
  result: QueryResult,
  format: QueryFormat,
  opts: RenderOptions,
): Generator<string | Buffer, void, undefined> {
  switch (format) {
    case 'json':
      yield* queryToJsonChunks(result);
      yield '\n';
      return;
    case 'ndjson':
      yield* queryToNdjsonChunks(result);
      return;
    case 'table':
    case 'wide':
      yield* renderQueryTableChunks(result, { ...opts, wide: format === 'wide' });
      return;
    default:
      yield* renderQueryPieces(result, format, opts);
  }
}

/** Renders a diff result in a format. */
export function renderDiff(result: DiffResult, format: DiffFormat, opts: RenderOptions): string {
  switch (format) {
    case 'table':
    case 'wide':
      return renderDiffText(result, opts);
    case 'json':
      return `${formatJson(diffToJson(result))}\n`;
    case 'yaml':
      return renderYaml(diffToJson(result));
    case 'md':
      return renderDiffMarkdown(result);
  }
}
