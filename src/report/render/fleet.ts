/**
 * Renderings of `fleet`: the table view (text, Markdown, the TUI), the JSON document (also YAML
 * and ndjson) and CSV. JSON field names are documented in docs/cli.md (`flightrec fleet`).
 */
import { formatHumanDuration } from '../../api/codec/duration.ts';
import { encodeInt64 } from '../../api/codec/int64.ts';
import type { JsonValue } from '../../api/codec/lossless-json.ts';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import type { TableView, Tone, ViewRow } from '../columns/index.ts';
import type { Fleet, FleetIceberg, FleetLine } from '../fleet.ts';
import { formatCount, formatSpan, formatTime, NONE } from '../format-units.ts';
import { pollTime } from '../timeline/types.ts';
import { csvLine } from './csv.ts';
import { formatJson } from './json.ts';

type Obj = { [key: string]: JsonValue };

/** The Iceberg cell: `ok 4 topics, lag 120`, `unreachable io_error`, `-` when never polled. */
export function icebergText(i: FleetIceberg): string {
  if (i.state === 'unknown') return NONE;
  if (i.state === 'ok') {
    if (i.topics === 0) return 'ok';
    return `ok ${i.topics} topic${i.topics === 1 ? '' : 's'}${i.maxCommitLag === undefined ? '' : `, lag ${formatCount(i.maxCommitLag)}`}`;
  }
  return i.detail === '' ? i.state : `${i.state} ${i.detail}`;
}

/** The open-events cells: error, warn and info counts. */
function eventCells(l: FleetLine): string[] {
  return [String(l.openEvents.error), String(l.openEvents.warn), String(l.openEvents.info)];
}

/** Columns of the fleet table (ids are stable: the TUI shows a subset). */
export const FLEET_COLUMNS = [
  { id: 'cluster', header: 'CLUSTER', align: 'left' },
  { id: 'lastPoll', header: 'LAST POLL', align: 'left' },
  { id: 'age', header: 'AGE', align: 'right' },
  { id: 'connections', header: 'CONNS', align: 'right' },
  { id: 'lag', header: 'WORST LAG', align: 'right' },
  { id: 'iceberg', header: 'ICEBERG', align: 'left' },
  { id: 'upgrade', header: 'UPGRADE', align: 'left' },
  { id: 'error', header: 'ERROR', align: 'right' },
  { id: 'warn', header: 'WARN', align: 'right' },
  { id: 'info', header: 'INFO', align: 'right' },
] as const;

/** The display cells of one line, parallel to FLEET_COLUMNS. */
export function fleetCells(l: FleetLine): string[] {
  return [
    l.cluster,
    l.lastPoll === undefined ? NONE : formatTime(pollTime(l.lastPoll)),
    l.age === undefined ? NONE : l.age < 0n ? `-${formatSpan(-l.age)}` : formatSpan(l.age),
    l.openConnections === undefined ? NONE : formatCount(l.openConnections),
    l.worstShadowLag === undefined ? NONE : formatCount(l.worstShadowLag),
    icebergText(l.iceberg),
    l.upgrade ?? NONE,
    ...eventCells(l),
  ];
}

function tonesOf(l: FleetLine): (Tone | undefined)[] {
  const tones: (Tone | undefined)[] = FLEET_COLUMNS.map(() => undefined);
  if (l.iceberg.state === 'unreachable' || l.iceberg.state === 'poll-failed') tones[5] = 'error';
  if (l.openEvents.error > 0) tones[7] = 'error';
  if (l.openEvents.warn > 0) tones[8] = 'warn';
  if (l.openEvents.error > 0) tones[0] = 'error';
  else if (l.openEvents.warn > 0) tones[0] = 'warn';
  return tones;
}

/** The fleet as a table view. */
export function fleetView(f: Fleet): TableView {
  const rows: ViewRow[] = f.lines.map((l) => ({ cells: fleetCells(l), tones: tonesOf(l) }));
  return { columns: FLEET_COLUMNS, rows };
}

/** One line as a JSON object. */
export function fleetLineToJson(l: FleetLine): Obj {
  return {
    cluster: l.cluster,
    lastPoll: l.lastPoll === undefined ? null : formatTimestamp(pollTime(l.lastPoll)),
    lastPollOutcome: l.lastPoll === undefined ? null : l.lastPoll.outcome,
    ageSeconds: l.age === undefined ? null : Number(l.age / 1_000_000n) / 1000,
    openConnections: l.openConnections ?? null,
    worstShadowLag: l.worstShadowLag === undefined ? null : encodeInt64(l.worstShadowLag),
    worstShadowLagPartition: l.worstShadowLagPartition ?? null,
    iceberg: {
      state: l.iceberg.state,
      detail: l.iceberg.detail,
      topics: l.iceberg.topics,
      maxCommitLag: l.iceberg.maxCommitLag === undefined ? null : encodeInt64(l.iceberg.maxCommitLag),
    },
    upgrade: l.upgrade ?? null,
    openEvents: { error: l.openEvents.error, warn: l.openEvents.warn, info: l.openEvents.info },
  };
}

/** The fleet as a JSON document: `at`, `window` and `clusters` (worst first). */
export function fleetToJson(f: Fleet): Obj {
  return {
    at: formatTimestamp(f.at),
    window: formatHumanDuration(f.window),
    clusters: f.lines.map(fleetLineToJson),
  };
}

/** `-o json`. */
export function renderFleetJson(f: Fleet): string {
  return `${formatJson(fleetToJson(f))}\n`;
}

/** `-o ndjson`: one cluster per line. */
export function renderFleetNdjson(f: Fleet): string {
  return f.lines.map((l) => `${formatJson(fleetLineToJson(l), 0)}\n`).join('');
}

/** `-o csv`: one row per cluster, machine values (RFC 3339 times, seconds, full counts). */
export function renderFleetCsv(f: Fleet): string {
  const head = [
    'cluster',
    'lastPoll',
    'ageSeconds',
    'openConnections',
    'worstShadowLag',
    'worstShadowLagPartition',
    'icebergState',
    'icebergDetail',
    'upgrade',
    'openError',
    'openWarn',
    'openInfo',
  ];
  let out = csvLine(head);
  for (const l of f.lines) {
    const j = fleetLineToJson(l);
    out += csvLine([
      l.cluster,
      String(j.lastPoll ?? ''),
      j.ageSeconds === null ? '' : String(j.ageSeconds),
      l.openConnections === undefined ? '' : String(l.openConnections),
      l.worstShadowLag === undefined ? '' : String(l.worstShadowLag),
      l.worstShadowLagPartition ?? '',
      l.iceberg.state,
      l.iceberg.detail,
      l.upgrade ?? '',
      ...eventCells(l),
    ]);
  }
  return out;
}
