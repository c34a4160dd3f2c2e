/**
 * JSON documents of query and diff results: the API's own field names and enum names, int64 as
 * decimal strings, timestamps in RFC 3339 UTC (through `encodeMessage`). The writer escapes
 * every control, C1 and bidi character, so the bytes are safe on a terminal and still lossless.
 */
import { JsonNumber, type JsonValue } from '../../api/codec/lossless-json.ts';
import { encodeInt64 } from '../../api/codec/int64.ts';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import { RESOURCES, type PollRow, type ResourceName } from '../../api/schema/resources.ts';
import { encodeMessage, encodeValue } from '../../api/wire/encode.ts';
import type { DiffResult, EntityChange, FieldChange, MetricTotal, Observation, ResourceDiff } from '../diff.ts';
import type { QueryResult, QuerySample } from '../query.ts';
import { freshnessToJson } from './freshness.ts';
import { quote, safeText } from './json-quote.ts';
import { ByteOut } from './byte-out.ts';
import { itemBytes } from './json-rows.ts';
import { asciiBytes } from './row-bytes.ts';

/**
 * True when JSON.stringify writes `v` exactly as formatJson does: a tree of plain objects,
 * arrays, strings, numbers, booleans and null (no bigint, no JsonNumber, no undefined in an array).
 */
function plainTree(v: unknown): boolean {
  if (v === null) return true;
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (Array.isArray(v)) {
    for (const e of v as unknown[]) if (e === undefined || !plainTree(e)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  const o = v as Record<string, unknown>;
  for (const k in o) if (o[k] !== undefined && !plainTree(o[k])) return false;
  return true;
}

/**
 * Serialises a JSON tree (bigint as a bare integer, a JsonNumber as its literal), indented by
 * `indent` spaces, or compact when 0. A tree of plain values (most documents) goes through the
 * engine's JSON.stringify, the same bytes; others through the writer below.
 */
export function formatJson(value: JsonValue, indent = 2): string {
  if (plainTree(value)) return safeText(JSON.stringify(value, null, indent));
  return writeJson(value, indent);
}

/** formatJson's writer for any JSON tree; exported for the tests that hold the fast path to it. */
export function writeJson(value: JsonValue, indent = 2): string {
  const nl = indent > 0 ? '\n' : '';
  const colon = indent > 0 ? ': ' : ':';
  const write = (v: JsonValue, depth: number): string => {
    if (v === null) return 'null';
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
    if (typeof v === 'boolean') return v ? 'true' : 'false';
    if (typeof v === 'string') return quote(v);
    if (v instanceof JsonNumber) return v.text;
    const inner = ' '.repeat(indent * (depth + 1));
    const outer = ' '.repeat(indent * depth);
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      return `[${nl}${v.map((e) => inner + write(e, depth + 1)).join(`,${nl}`)}${nl}${outer}]`;
    }
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    if (keys.length === 0) return '{}';
    return `{${nl}${keys.map((k) => `${inner}${quote(k)}${colon}${write(v[k]!, depth + 1)}`).join(`,${nl}`)}${nl}${outer}}`;
  };
  return write(value, 0);
}

/**
 * Plain data (objects, arrays, strings, numbers, booleans, bigints, null) as a JSON tree, checked
 * value by value: undefined fields are left out, as formatJson leaves them out; anything else
 * (a function, a symbol, undefined in an array) is refused with its path.
 */
export function toJsonValue(value: unknown, path = '$'): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || value instanceof JsonNumber) return value;
  if (Array.isArray(value)) return value.map((v: unknown, i) => toJsonValue(v, `${path}[${i}]`));
  if (typeof value !== 'object') throw new TypeError(`${path}: ${typeof value} is not a JSON value`);
  const out: { [key: string]: JsonValue } = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toJsonValue(v, `${path}.${k}`);
  return out;
}

/** A row of a resource in the API's JSON form. */
export function encodeRow(resource: ResourceName, row: object): { [key: string]: JsonValue } {
  return encodeMessage(RESOURCES[resource].schema, row as Record<string, unknown>);
}

/** A sample of a range query: poll time, poll id and the row. */
export function encodeSample(resource: ResourceName, s: QuerySample): { [key: string]: JsonValue } {
  return { time: formatTimestamp(s.poll.startTime), pollId: encodeInt64(s.poll.id), row: encodeRow(resource, s.row) };
}

function pollRef(poll: PollRow | undefined): { [key: string]: JsonValue } {
  return poll === undefined
    ? { pollId: null, observedAt: null }
    : { pollId: encodeInt64(poll.id), observedAt: formatTimestamp(poll.startTime) };
}

/** The JSON document of a query result. */
export function queryToJson(result: QueryResult): { [key: string]: JsonValue } {
  const head: { [key: string]: JsonValue } = { resource: result.resource };
  if (result.mode === 'at') {
    head.at = formatTimestamp(result.at!);
    if (result.resource !== 'polls') {
      Object.assign(head, pollRef(result.poll));
      // additive: when the answer was observed, and whether it is stale at `at` (docs/cli.md)
      if (result.freshness !== undefined) head.stale = result.freshness.stale;
      head.failuresSince = result.failures ?? 0;
      if (result.freshness !== undefined) head.freshness = freshnessToJson(result.freshness);
    }
  } else {
    head.since = formatTimestamp(result.since!);
    head.until = formatTimestamp(result.until!);
  }
  head.filter = result.filter;
  head.orderBy = result.orderBy;
  if (result.source !== undefined) head.source = result.source;
  head.total = result.total;
  if (result.samples !== undefined) head.samples = result.samples.map((s) => encodeSample(result.resource, s));
  else head.rows = result.rows.map((r) => encodeRow(result.resource, r));
  return head;
}

/** The key of queryToJsonChunks' wrapper around an item it writes through the tree (any key: it is cut off again). */
const PIECE_OPEN = '{\n  "r": [\n';
const PIECE_CLOSE = '\n  ]\n}';
/** The indentation of an item of the document's array, and what comes before each item after the first. */
const ITEM_INDENT = asciiBytes('    ');
const ITEM_NEXT = asciiBytes(',\n    ');
const NEWLINE = asciiBytes('\n');

/**
 * The text of `formatJson(queryToJson(result))`, the same bytes, without the whole tree at once
 * (queryToJsonChunks, decoded).
 */
export function queryToJsonText(result: QueryResult): string {
  return [...queryToJsonPieces(result)].join('');
}

/** queryToJsonChunks as strings (each chunk holds whole characters). */
export function* queryToJsonPieces(result: QueryResult): Generator<string, void, undefined> {
  for (const chunk of queryToJsonChunks(result)) yield chunk.toString('utf8');
}

/**
 * The UTF-8 bytes of `formatJson(queryToJson(result))` in chunks of about 64 KB, in order, each
 * made when asked for and never written again: the head, then the rows (or samples), the
 * document's last member, written straight from the decoded rows (json-rows.ts), indented as in
 * the document; an item that writer does not cover is encoded and written as an item of a
 * one-member wrapper at the same depth, cut out again. A chunk ends between two items.
 */
export function* queryToJsonChunks(result: QueryResult): Generator<Buffer, void, undefined> {
  const items: readonly unknown[] = result.samples ?? result.rows;
  if (items.length === 0) {
    yield Buffer.from(formatJson(queryToJson(result)), 'utf8');
    return;
  }
  const key = result.samples !== undefined ? 'samples' : 'rows';
  const head = formatJson(
    queryToJson({ ...result, rows: [], ...(result.samples === undefined ? {} : { samples: [] }) }),
  );
  const empty = `${quote(key)}: []\n}`;
  if (!head.endsWith(empty)) {
    yield Buffer.from(formatJson(queryToJson(result)), 'utf8');
    return;
  }
  const ready: Buffer[] = [];
  const o = new ByteOut((chunk) => ready.push(chunk));
  o.text(`${head.slice(0, head.length - empty.length + quote(key).length + 2)}[\n`);
  const write = itemBytes(result.resource, result.samples !== undefined, 2, (item) => {
    const text = formatJson({ r: [encodeItem(result, item)] });
    return text.slice(PIECE_OPEN.length + ITEM_INDENT.length, text.length - PIECE_CLOSE.length);
  });
  for (let k = 0; k < items.length; k++) {
    o.bytes(k > 0 ? ITEM_NEXT : ITEM_INDENT);
    write(items[k], o);
    o.boundary();
    if (ready.length > 0) yield* ready.splice(0);
  }
  o.text('\n  ]\n}');
  o.end();
  yield* ready;
}

/** A row or sample of a result as its JSON tree. */
function encodeItem(result: QueryResult, item: unknown): JsonValue {
  return result.samples !== undefined
    ? encodeSample(result.resource, item as QuerySample)
    : encodeRow(result.resource, item as object);
}

/** The lines of an ndjson rendering of a query: one row (or sample) per line, each a JSON document. */
export function queryToNdjson(result: QueryResult): string {
  return [...queryToNdjsonPieces(result)].join('');
}

/** queryToNdjsonChunks as strings (each chunk holds whole lines). */
export function* queryToNdjsonPieces(result: QueryResult): Generator<string, void, undefined> {
  for (const chunk of queryToNdjsonChunks(result)) yield chunk.toString('utf8');
}

/** The UTF-8 bytes of queryToNdjson in chunks of about 64 KB of whole lines, in order, each made when asked for. */
export function* queryToNdjsonChunks(result: QueryResult): Generator<Buffer, void, undefined> {
  const items: readonly unknown[] = result.samples ?? result.rows;
  const write = itemBytes(result.resource, result.samples !== undefined, 0, (item) =>
    formatJson(encodeItem(result, item), 0),
  );
  const ready: Buffer[] = [];
  const o = new ByteOut((chunk) => ready.push(chunk));
  for (let k = 0; k < items.length; k++) {
    write(items[k], o);
    o.bytes(NEWLINE);
    o.boundary();
    if (ready.length > 0) yield* ready.splice(0);
  }
  o.end();
  yield* ready;
}

function observation(o: Observation): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {
    at: formatTimestamp(o.at),
    observed: o.observed,
    ...pollRef(o.poll),
    stale: o.stale,
    failures: o.failures,
  };
  if (o.lastFailure !== undefined) {
    out.lastFailure = encodeMessage(RESOURCES.polls.schema, o.lastFailure);
  }
  return out;
}

function value(c: FieldChange, v: unknown): JsonValue {
  if (v === undefined || v === null) return null;
  return c.type === undefined ? (v as JsonValue) : encodeValue(c.type, v);
}

function change(c: FieldChange): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = { path: c.path, kind: c.kind, old: value(c, c.old), new: value(c, c.new) };
  if (c.delta !== undefined) out.delta = encodeInt64(c.delta);
  if (c.ratePerSecond !== undefined) out.ratePerSecond = c.ratePerSecond;
  if (c.unit !== undefined) out.unit = c.unit;
  if (c.description !== undefined) out.description = c.description;
  return out;
}

function entity(e: EntityChange): { [key: string]: JsonValue } {
  return { key: e.key, changes: e.changes.map(change), counters: e.counters.map(change), gauges: e.gauges.map(change) };
}

function total(t: MetricTotal): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {
    path: t.path,
    kind: t.kind,
    unit: t.unit,
    old: encodeInt64(t.oldSum),
    new: encodeInt64(t.newSum),
    delta: encodeInt64(t.delta),
    moving: t.moving,
  };
  if (t.ratePerSecond !== undefined) out.ratePerSecond = t.ratePerSecond;
  return out;
}

function resourceDiff(r: ResourceDiff): { [key: string]: JsonValue } {
  return {
    resource: r.resource,
    observed: r.observed,
    from: observation(r.from),
    to: observation(r.to),
    elapsedSeconds: r.elapsedSeconds,
    added: r.added.map((e) => ({ key: e.key, row: encodeRow(r.resource, e.row) })),
    removed: r.removed.map((e) => ({ key: e.key, row: encodeRow(r.resource, e.row) })),
    changed: r.changed.map(entity),
    unchanged: r.unchanged,
    totals: r.totals.map(total),
    ...(r.connectionChanges === undefined ? {} : { connectionChanges: { ...r.connectionChanges } }),
  };
}

/** The JSON document of a diff result. */
export function diffToJson(result: DiffResult): { [key: string]: JsonValue } {
  return {
    from: formatTimestamp(result.from),
    to: formatTimestamp(result.to),
    differences: result.differences,
    only: [...result.only],
    unobserved: result.unobserved,
    skipped: result.skipped,
    resources: result.resources.map(resourceDiff),
  };
}
