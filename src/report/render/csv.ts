/**
 * CSV of query results (RFC 4180: CRLF line ends, fields with `"` `,` CR or LF quoted, quotes
 * doubled). One column per scalar field path of the resource (wire names, dotted), values in the
 * API's JSON form (int64 in full, RFC 3339 times, `1.500s` durations, full enum names); lists
 * and maps are one cell of compact JSON. Range queries start with `time` and `pollId`.
 *
 * Spreadsheet safety: a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return
 * gets a leading apostrophe (`'=1+2`), so a spreadsheet never runs it as a formula; plain
 * numbers such as `-5` or `-1.5` are left alone. An unset timestamp (the epoch, as the wire
 * writes `closeTime` of an open connection) is `-`, as in the text tables. Control and bidi characters are replaced by
 * visible escapes (`\x1b`), as on a terminal. Use `-o json` for the exact bytes.
 */
import { stringifyJson, type JsonValue } from '../../api/codec/lossless-json.ts';
import { encodeInt64 } from '../../api/codec/int64.ts';
import { formatTimestamp, isUnsetTimestamp } from '../../api/codec/timestamp.ts';
import type { FieldType, MessageSchema } from '../../api/schema/fields.ts';
import { RESOURCES, type ResourceName } from '../../api/schema/resources.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { encodeValue } from '../../api/wire/encode.ts';
import type { QueryResult } from '../query.ts';

const FORMULA = /^[=+\-@\t\r]/;
/** An unset timestamp (the epoch on the wire), as in the text tables. */
const UNSET = '-';
const PLAIN_NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;

/** One cell made spreadsheet-safe and RFC 4180-quoted. */
export function csvCell(text: string): string {
  let v = sanitizeForTerminal(text);
  if (FORMULA.test(v) && !PLAIN_NUMBER.test(v) && v !== UNSET) v = `'${v}`;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** One CSV line (CRLF-terminated). */
export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

interface Leaf {
  readonly path: string;
  readonly steps: readonly string[];
  readonly type: FieldType;
}

/** The scalar leaves of a schema (lists and maps count as leaves), depth first in schema order. */
function leaves(schema: MessageSchema, prefix: readonly string[] = []): Leaf[] {
  const out: Leaf[] = [];
  for (const [name, spec] of Object.entries(schema.fields)) {
    const steps = [...prefix, name];
    if (spec.type.kind === 'message' && Object.keys(spec.type.message.fields).length > 0) {
      out.push(...leaves(spec.type.message, steps));
    } else {
      out.push({ path: steps.join('.'), steps, type: spec.type });
    }
  }
  return out;
}

function leafText(leaf: Leaf, row: object): string {
  let v: unknown = row;
  for (const s of leaf.steps) v = v === undefined || v === null ? undefined : (v as Record<string, unknown>)[s];
  if (v === undefined) return '';
  // the epoch is how the wire says "not set" (closeTime of an open connection): never a 1970 date
  if (leaf.type.kind === 'timestamp' && typeof v === 'bigint' && isUnsetTimestamp(v)) return UNSET;
  const encoded: JsonValue = encodeValue(leaf.type, v);
  if (typeof encoded === 'string') return encoded;
  if (typeof encoded === 'object' && encoded !== null) return stringifyJson(encoded);
  return String(encoded);
}

/** The header of a resource's CSV. */
export function csvHeader(resource: ResourceName, withPoll: boolean): string[] {
  const names = leaves(RESOURCES[resource].schema).map((l) => l.path);
  return withPoll ? ['time', 'pollId', ...names] : names;
}

/** Renders a query result as CSV, header first. */
export function renderQueryCsv(result: QueryResult): string {
  return [...renderQueryCsvPieces(result)].join('');
}

/** Rows of CSV per piece of renderQueryCsvPieces: well below 128 KB of text (json.ts's ROWS_PER_PIECE). */
const ROWS_PER_PIECE = 128;

/** renderQueryCsv's text in pieces (the header, then up to ROWS_PER_PIECE lines each), in order. */
export function* renderQueryCsvPieces(result: QueryResult): Generator<string, void, undefined> {
  const ls = leaves(RESOURCES[result.resource].schema);
  const withPoll = result.samples !== undefined;
  yield csvLine(csvHeader(result.resource, withPoll));
  for (let i = 0; i < result.rows.length; i += ROWS_PER_PIECE) {
    const end = Math.min(result.rows.length, i + ROWS_PER_PIECE);
    let piece = '';
    for (let k = i; k < end; k++) {
      const cells = ls.map((l) => leafText(l, result.rows[k]!));
      const s = result.samples?.[k];
      piece += csvLine(s === undefined ? cells : [formatTimestamp(s.poll.startTime), encodeInt64(s.poll.id), ...cells]);
    }
    yield piece;
  }
}
