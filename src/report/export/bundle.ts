/**
 * The export bundle: one JSON document with the polls of a time range, each with its request
 * and its reconstructed answer (or its failure), written in pieces so a large history never
 * sits in memory whole. With redaction, a first pass learns every sensitive value, a second
 * writes the polls with those values (and IP addresses anywhere) replaced by stable tokens.
 */
import { stringifyJson, type JsonValue } from '../../api/codec/lossless-json.ts';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import { OPERATIONS, type OperationName } from '../../api/schema/operations.ts';
import { PollRow } from '../../api/schema/resources.ts';
import type { PollRow as PollRowValue } from '../../api/schema/resources.ts';
import { encodeAnswerTree } from '../../api/wire/answers.ts';
import { encodeMessage } from '../../api/wire/encode.ts';
import type { HistoryReader } from '../../db/index.ts';
import { Redactor, type MappingEntry } from './redact.ts';

/** The format name written at the top of every bundle. */
export const EXPORT_FORMAT = 'flightrec-export';
/** The bundle format version. */
export const EXPORT_VERSION = 1;

/** What the export reads: the poll log and each poll's reconstruction (a HistoryReader). */
export type ExportSource = Pick<HistoryReader, 'polls' | 'reconstructAnswer'>;

/** Options of writeExportBundle; times in ns since the epoch. */
export interface ExportOptions {
  readonly since?: bigint;
  readonly until?: bigint;
  readonly cluster?: string;
  /** only the polls of this operation (its raw history), recorded in the bundle as `source` */
  readonly source?: OperationName;
  readonly redact: boolean;
  /** the export time, ms since the epoch */
  readonly now: number;
  /** who wrote it, e.g. `flightrec 0.1.0` */
  readonly generator: string;
  /** file name of the mapping, recorded in the bundle (never the mapping itself) */
  readonly mappingFile?: string;
}

/** What an export wrote. */
export interface ExportResult {
  readonly polls: number;
  readonly failed: number;
  /** the tokens handed out (empty without redaction) */
  readonly mapping: readonly MappingEntry[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function rawField(raw: Uint8Array, redact: boolean): { [k: string]: JsonValue } {
  if (redact) return { rawOmitted: `redacted export: the ${raw.length} raw bytes are left out` };
  try {
    return { raw: utf8.decode(raw) };
  } catch {
    return { rawBase64: Buffer.from(raw).toString('base64') };
  }
}

/** The JSON entry of one poll, before redaction (with a redactor: unknown fields already tokenised). */
function pollEntry(
  source: ExportSource,
  row: PollRowValue,
  redact: boolean,
  redactor?: Redactor,
): { [k: string]: JsonValue } {
  const r = source.reconstructAnswer(row.id);
  const op = r.operation;
  const entry: { [k: string]: JsonValue } = {
    poll: encodeMessage(PollRow, row),
    request: encodeMessage(OPERATIONS[op].request, r.request),
  };
  if (r.answer !== undefined)
    entry.answer = encodeAnswerTree(op, redactor === undefined ? r.answer : redactor.redactUnknown(r.answer));
  if (r.failure !== undefined) {
    const f = r.failure;
    entry.failure = {
      code: f.code,
      kind: f.kind,
      ...(f.httpStatus === undefined ? {} : { httpStatus: f.httpStatus }),
      message: f.message,
      ...(f.details === undefined ? {} : { details: f.details as JsonValue }),
      ...(f.path === undefined ? {} : { path: f.path }),
      bytes: f.bytes,
    };
  }
  if (r.raw !== undefined) Object.assign(entry, rawField(r.raw, redact));
  return entry;
}

/**
 * Writes the bundle through `write` (called with pieces of one JSON document) and returns what
 * was written; with `redact`, the mapping of tokens to values (for a separate file).
 */
export function writeExportBundle(
  source: ExportSource,
  write: (chunk: string) => void,
  opts: ExportOptions,
): ExportResult {
  const polls = source.polls({
    cluster: opts.cluster,
    since: opts.since,
    until: opts.until,
    ...(opts.source === undefined ? {} : { operation: opts.source }),
  });
  const redactor = opts.redact ? new Redactor() : undefined;
  if (redactor !== undefined) {
    for (const row of polls) {
      const e = pollEntry(source, row, true);
      redactor.learn(e.request);
      redactor.learn(e.answer);
      redactor.learn(e.failure);
    }
  }
  const header: { [k: string]: JsonValue } = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    generator: opts.generator,
    exportedAt: formatTimestamp(BigInt(Math.floor(opts.now)) * 1_000_000n),
    ...(opts.cluster === undefined ? {} : { cluster: opts.cluster }),
    ...(opts.source === undefined ? {} : { source: opts.source }),
    since: opts.since === undefined ? null : formatTimestamp(opts.since),
    until: opts.until === undefined ? null : formatTimestamp(opts.until),
    redacted: opts.redact,
    ...(opts.mappingFile === undefined ? {} : { mappingFile: opts.mappingFile }),
  };
  const head = stringifyJson(header);
  write(`${head.slice(0, -1)},"polls":[\n`);
  let failed = 0;
  polls.forEach((row, i) => {
    if (row.outcome !== 'ok') failed++;
    const entry: JsonValue = pollEntry(source, row, opts.redact, redactor);
    write(`${i === 0 ? '' : ',\n'}${stringifyJson(redactor === undefined ? entry : redactor.redact(entry))}`);
  });
  write(`\n],"pollCount":${polls.length},"failedPolls":${failed}}\n`);
  return { polls: polls.length, failed, mapping: redactor?.entries() ?? [] };
}

/** The mapping file's document: tokens back to values; it stays local and private (mode 0600). */
export function mappingDocument(entries: readonly MappingEntry[], exportFile: string, now: number): string {
  const doc = {
    format: 'flightrec-redaction-mapping',
    version: EXPORT_VERSION,
    export: exportFile,
    createdAt: formatTimestamp(BigInt(Math.floor(now)) * 1_000_000n),
    note: 'maps the tokens of a redacted export back to the original values: keep this file private, never share it with the export',
    entries: entries.map((e) => ({ kind: e.kind, token: e.token, value: e.value })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
