/**
 * Adapters from recorded samples to what the entity screens draw: a connection's rate
 * sparklines and value changes (report's field diff), partition lag sparklines, member versions.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { RESOURCES, type ShadowPartitionRow } from '../../api/schema/resources.ts';
import type { MemberVersion } from '../../api/schema/upgrade.ts';
import type { Sample } from '../../db/index.ts';
import { diffRows } from '../../report/diff-fields.ts';
import { formatByteRate, formatCount, formatCountRate, secondsBetween } from '../../report/format-units.ts';
import { formatChange } from '../../report/render/values.ts';
import { resample, sparkline } from '../../report/sparkline.ts';
import type { ConnectionDetail, VersionStep } from './source.ts';
import { pollTime as pollInstant } from '../../report/timeline/types.ts';

/** Width of the sparklines, in characters. */
export const SPARK_WIDTH = 40;
/** The recent statistics cover the previous one-minute window. */
const WINDOW_SECONDS = 60;

/** A sparkline of (time, value) points: one character per point when few, else resampled. */
export function sparkOf(times: readonly bigint[], values: readonly number[], width = SPARK_WIDTH): string {
  if (values.length <= width) return sparkline(values);
  const first = times[0] as bigint;
  const last = times[times.length - 1] as bigint;
  return sparkline(resample(times, values, first, last, width, 'max'));
}

type ConnSample = { readonly at: bigint; readonly row: KafkaConnection };

/** Keeps one sample per instant (the last), so a fan-out round reads as one observation. */
function onePerInstant(samples: readonly ConnSample[]): ConnSample[] {
  const out: ConnSample[] = [];
  for (const s of samples) {
    if (out.length > 0 && (out[out.length - 1] as ConnSample).at === s.at) out[out.length - 1] = s;
    else out.push(s);
  }
  return out;
}

/** A connection's detail at `at` from its samples (oldest first); undefined without samples. */
export function connectionDetail(all: readonly ConnSample[], at: bigint): ConnectionDetail | undefined {
  const samples = onePerInstant(all);
  const first = samples[0];
  if (first === undefined) return undefined;
  let current = first;
  for (const s of samples) if (s.at <= at) current = s;
  const times = samples.map((s) => s.at);
  const recent = (pick: (c: KafkaConnection) => bigint): number[] =>
    samples.map((s) => Number(pick(s.row)) / WINDOW_SECONDS);
  const produce = recent((c) => c.recentRequestStatistics.produceBytes);
  const fetch = recent((c) => c.recentRequestStatistics.fetchBytes);
  const requests = recent((c) => c.recentRequestStatistics.requestCount);
  const i = samples.indexOf(current);
  const rates = [
    { name: 'produce', spark: sparkOf(times, produce), latest: formatByteRate(produce[i] ?? 0) },
    { name: 'fetch', spark: sparkOf(times, fetch), latest: formatByteRate(fetch[i] ?? 0) },
    { name: 'requests', spark: sparkOf(times, requests), latest: formatCountRate(requests[i] ?? 0) },
  ];
  const schema = RESOURCES.connections.schema;
  const changes: { at: bigint; text: string }[] = [];
  for (let k = 1; k < samples.length; k++) {
    const a = samples[k - 1] as ConnSample;
    const b = samples[k] as ConnSample;
    const fields = diffRows('connections', schema, a.row as never, b.row as never, secondsBetween(a.at, b.at));
    for (const f of fields) if (f.kind === 'value') changes.push({ at: b.at, text: formatChange(f) });
  }
  return { row: current.row, observedAt: current.at, samples, rates, changes };
}

/**
 * Fills the empty slices of a resampled series with the value before them: between two polls
 * the lag is the one last observed, so slices without a poll are not drawn as gaps.
 */
export function holdLast(values: readonly number[]): number[] {
  const out: number[] = [];
  let last = Number.NaN;
  for (const v of values) {
    if (!Number.isNaN(v)) last = v;
    out.push(last);
  }
  return out;
}

/** A partition's values in the topic's columns (`column`: a poll time's index); NaN where it was not seen. */
function onAxis(
  e: { times: bigint[]; values: number[] },
  column: ReadonlyMap<bigint, number>,
  width: number,
): number[] {
  const out = new Array<number>(width).fill(Number.NaN);
  e.times.forEach((t, i) => {
    const c = column.get(t);
    if (c !== undefined)
      out[c] = Math.max(Number.isNaN(out[c] as number) ? -Infinity : (out[c] as number), e.values[i] as number);
  });
  return out;
}

/** Per partition id of one topic, a lag sparkline over [since, until] and the latest lag. */
export function partitionLagSparks(
  samples: readonly Sample[],
  link: string,
  topic: string,
  since: bigint,
  until: bigint,
): Map<string, string> {
  const series = new Map<string, { times: bigint[]; values: number[] }>();
  for (const s of samples) {
    const p = s.row as ShadowPartitionRow;
    if (p.shadowLinkName !== link || p.topicName !== topic) continue;
    const key = String(p.partitionId);
    let e = series.get(key);
    if (e === undefined) series.set(key, (e = { times: [], values: [] }));
    e.times.push(pollInstant(s.poll));
    e.values.push(Number(p.lag));
  }
  const out = new Map<string, string>();
  const width = 30;
  // one column per poll of the topic when they fit, the same columns for every partition: a
  // partition first seen later starts later in its line, not at its start
  const times = new Set<bigint>();
  for (const e of series.values()) for (const t of e.times) times.add(t);
  const axis = [...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const column = new Map(axis.map((t, i) => [t, i]));
  for (const [key, e] of series) {
    const values =
      axis.length <= width
        ? onAxis(e, column, axis.length)
        : holdLast(resample(e.times, e.values, since, until, width, 'max'));
    const last = e.values[e.values.length - 1] ?? 0;
    out.set(key, `${sparkline(values)} ${formatCount(last)}`);
  }
  return out;
}

/** Per node id, the versions a member reported across time (a step where release, version or liveness changed). */
export function memberVersionSteps(samples: readonly Sample[]): Map<number, VersionStep[]> {
  const out = new Map<number, VersionStep[]>();
  for (const s of samples) {
    const m = s.row as MemberVersion;
    let steps = out.get(m.nodeId);
    if (steps === undefined) out.set(m.nodeId, (steps = []));
    const logical = m.versionKnown ? String(m.logicalVersion) : '?';
    const last = steps[steps.length - 1];
    if (last !== undefined && last.release === m.releaseVersion && last.logical === logical && last.alive === m.alive)
      continue;
    steps.push({ at: pollInstant(s.poll), release: m.releaseVersion, logical, alive: m.alive });
  }
  return out;
}
