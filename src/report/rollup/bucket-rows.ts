/**
 * One rollup bucket computed from raw history with the trend computations themselves, so that
 * a trend read from rollups and one read from raw history agree by construction: open counts
 * from `connectionCounts`, counter increases from `counterRates`, lags from `shadowLag` and
 * `icebergLag`, each over the bucket with a single series bucket and the composite connection
 * group key (`rollupKey`).
 *
 * A bucket [start, end) holds the counter increases whose later sample lies in it: its counter
 * window starts at the last connection poll before `start` (the baseline), so consecutive
 * buckets chain without losing the increase between them.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { RESOURCES, type PollRow, type ShadowTopicRow } from '../../api/schema/resources.ts';
import type { RollupBatch, RollupConnRow, RollupIcebergRow, RollupShadowRow } from '../../db/rollups/rollup-store.ts';
import { authFailed } from '../timeline/detectors/conn-tracker.ts';
import { comparePolls } from '../timeline/frames.ts';
import type { Thresholds } from '../timeline/thresholds.ts';
import { pollTime } from '../timeline/types.ts';
import { Buckets } from '../trends/buckets.ts';
import { rollupKey } from '../trends/group-keys.ts';
import { connectionCounts } from '../trends/connection-counts.ts';
import { counterRates } from '../trends/counter-rates.ts';
import { icebergFloor, icebergLag } from '../trends/iceberg-lag.ts';
import { shadowFloor, shadowLag } from '../trends/shadow-lag.ts';
import type { TrendRow, TrendsSource } from '../trends/types.ts';

type Window = { since: bigint; until: bigint; cluster?: string };
type SampleOf = { poll: PollRow; row: object };

/** A source that reads each resource of a window once and answers narrower windows from memory. */
function cachedSource(source: TrendsSource, wide: Window): TrendsSource {
  const polls = source.polls({ cluster: wide.cluster, since: wide.since, until: wide.until });
  const samples = new Map<string, SampleOf[]>();
  const inside = (t: bigint, w: { since?: bigint; until?: bigint }): boolean =>
    (w.since === undefined || t >= w.since) && (w.until === undefined || t <= w.until);
  return {
    polls: (q) => polls.filter((p) => inside(pollTime(p), q)),
    samples: (resource, w) => {
      let got = samples.get(resource);
      if (got === undefined) samples.set(resource, (got = [...source.samples(resource, wide)]));
      return got.filter((s) => inside(pollTime(s.poll), w));
    },
  };
}

/** The last successful poll of `ops` before `t` (the counters' baseline), if any. */
function pollBefore(
  source: TrendsSource,
  cluster: string | undefined,
  t: bigint,
  ops: ReadonlySet<string>,
  lookback: bigint,
): bigint | undefined {
  const before = source
    .polls({ cluster, since: t - lookback, until: t - 1n })
    .filter((p) => p.outcome === 'ok' && ops.has(p.operation))
    .sort(comparePolls);
  const last = before[before.length - 1];
  return last === undefined ? undefined : pollTime(last);
}

const rowsByKey = (rows: readonly TrendRow[]): Map<string, TrendRow> => new Map(rows.map((r) => [r.key, r]));
const increaseOf = (r: TrendRow | undefined, field = 'increase'): bigint =>
  r === undefined ? 0n : BigInt(String(r.detail[field] ?? '0'));

/** Summarises raw history over [start, end) into rollup rows (the bucket's own row included). */
export function rollBucket(
  source: TrendsSource,
  cluster: string | undefined,
  start: bigint,
  end: bigint,
  thresholds: Thresholds,
): RollupBatch {
  const steps = rollBucketSteps(source, cluster, start, end, thresholds);
  for (;;) {
    const r = steps.next();
    if (r.done === true) return r.value;
  }
}

/** rollBucket in steps: it pauses (yields) between its computations, so a caller can let other work run. */
export function* rollBucketSteps(
  source: TrendsSource,
  cluster: string | undefined,
  start: bigint,
  end: bigint,
  thresholds: Thresholds,
): Generator<void, RollupBatch> {
  const connOps = new Set<string>(RESOURCES.connections.operations);
  const lookback = end - start;
  const prev = pollBefore(source, cluster, start, connOps, lookback) ?? start;
  const wide: Window = { since: prev, until: end - 1n, cluster };
  const src = cachedSource(source, wide);
  const own: Window = { since: start, until: end - 1n, cluster };
  const one = new Buckets(start, end - 1n, 1);

  const connPolls = src
    .polls(own)
    .filter((p) => p.outcome === 'ok' && connOps.has(p.operation) && p.fanoutCalls <= 1)
    .sort(comparePolls);
  const counts = rowsByKey(connectionCounts(src, 'rollup', own, one).rows);
  yield;
  const bytes = counterRates(src, 'batch-size', 'rollup', wide, one);
  const produce = rowsByKey(bytes.rows);
  yield;
  const fetch = rowsByKey(counterRates(src, 'fetch-bytes', 'rollup', wide, one).rows);
  yield;
  const requests = rowsByKey(counterRates(src, 'requests', 'rollup', wide, one).rows);
  yield;
  const events = connectionEvents(src, own);

  const keys = new Set<string>([
    ...counts.keys(),
    ...produce.keys(),
    ...fetch.keys(),
    ...requests.keys(),
    ...events.keys(),
  ]);
  const conns: RollupConnRow[] = [];
  for (const key of keys) {
    const [nodeId, listener, principal, clientId, software] = JSON.parse(key) as [
      number,
      string,
      string,
      string,
      string,
    ];
    const c = counts.get(key);
    const e = events.get(key);
    const n = c === undefined ? 0 : Number(c.detail.polls);
    conns.push({
      start,
      nodeId,
      listener,
      principal,
      clientId,
      software,
      openMin: c === undefined ? 0 : Number(c.detail.min),
      openMax: c === undefined ? 0 : Number(c.detail.max),
      openLast: c === undefined ? 0 : c.value,
      openSum: c === undefined ? 0 : Math.round((c.series[0] ?? 0) * n),
      opened: e?.opened ?? 0,
      closed: e?.closed ?? 0,
      authFailures: e?.authFailures ?? 0,
      resets: Number(produce.get(key)?.detail.resets ?? 0),
      produceBytes: increaseOf(produce.get(key)),
      produceBatches: increaseOf(produce.get(key), 'batches'),
      fetchBytes: increaseOf(fetch.get(key)),
      requests: increaseOf(requests.get(key)),
    });
  }

  yield;
  const shadow: RollupShadowRow[] = [];
  const progress = shadowProgress(src, wide);
  for (const r of shadowLag(
    src,
    'partition',
    own,
    one,
    Number(thresholds.shadow.lagGrowth) / 1e9,
    shadowFloor(thresholds),
  ).rows) {
    const parts = r.key.split('/');
    const link = parts[0] ?? '';
    const partition = Number(parts[parts.length - 1]);
    const topic = parts.slice(1, -1).join('/');
    const p = progress.get(r.key);
    shadow.push({
      start,
      link,
      topic,
      partition,
      lagMin: BigInt(String(r.detail.minLag)),
      lagMax: BigInt(String(r.detail.maxLag)),
      lagLast: BigInt(String(r.detail.lag)),
      shadowLast: p?.shadowLast ?? 0n,
      sourceLast: p?.sourceLast ?? 0n,
      progress: p === undefined ? 0n : p.shadowLast - p.shadowFirst,
      state: String(r.detail.state),
    });
  }

  yield;
  const iceberg: RollupIcebergRow[] = icebergLag(src, 'topic', own, one, icebergFloor(thresholds)).rows.map((r) => ({
    start,
    topic: r.key,
    lagMin: BigInt(String(r.detail.minLag)),
    lagMax: BigInt(String(r.detail.maxLag)),
    lagLast: BigInt(String(r.detail.commitLag)),
    partitions: Number(r.detail.partitions),
  }));

  const first = connPolls[0];
  const last = connPolls[connPolls.length - 1];
  return {
    buckets: [
      {
        start,
        connPolls: connPolls.length,
        firstPoll: first === undefined ? undefined : pollTime(first),
        lastPoll: last === undefined ? undefined : pollTime(last),
      },
    ],
    conns,
    shadow,
    iceberg,
  };
}

/** Connections opened, closed and failing authentication in the window, per connection group (each uid once). */
function connectionEvents(
  source: TrendsSource,
  w: Window,
): Map<string, { opened: number; closed: number; authFailures: number }> {
  const out = new Map<string, { opened: number; closed: number; authFailures: number }>();
  const opened = new Set<string>();
  const closed = new Set<string>();
  const end = w.until + 1n;
  for (const s of source.samples('connections', w)) {
    const c = s.row as KafkaConnection;
    const key = rollupKey(c);
    let g = out.get(key);
    const counted = (): { opened: number; closed: number; authFailures: number } => {
      if (g === undefined) out.set(key, (g = { opened: 0, closed: 0, authFailures: 0 }));
      return g;
    };
    if (c.openTime >= w.since && c.openTime < end && !opened.has(c.uid)) {
      opened.add(c.uid);
      counted().opened++;
      if (authFailed(c)) counted().authFailures++;
    }
    if (
      c.state === 'KAFKA_CONNECTION_STATE_CLOSED' &&
      c.closeTime >= w.since &&
      c.closeTime < end &&
      !closed.has(c.uid)
    ) {
      closed.add(c.uid);
      counted().closed++;
    }
  }
  return out;
}

/**
 * Per shadow partition (`link/topic/partition`): shadow high watermark at the window's first and last poll, source at
 * the last.
 */
function shadowProgress(
  source: TrendsSource,
  w: Window,
): Map<string, { shadowFirst: bigint; shadowLast: bigint; sourceLast: bigint }> {
  const out = new Map<string, { shadowFirst: bigint; shadowLast: bigint; sourceLast: bigint }>();
  for (const s of source.samples('shadow-topics', w)) {
    const t = s.row as ShadowTopicRow;
    for (const p of t.status.partitionInformation) {
      const key = `${t.shadowLinkName}/${t.name}/${p.partitionId}`;
      const got = out.get(key);
      if (got === undefined)
        out.set(key, { shadowFirst: p.highWatermark, shadowLast: p.highWatermark, sourceLast: p.sourceHighWatermark });
      else {
        got.shadowLast = p.highWatermark;
        got.sourceLast = p.sourceHighWatermark;
      }
    }
  }
  return out;
}
