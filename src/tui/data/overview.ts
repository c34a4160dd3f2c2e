/**
 * The overview's figures at an instant, from the source's states and the timeline's series.
 * The sums here (rates, worst lag) belong in src/report's summary once it exists; this adapter
 * then only calls it.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { FinalizationState } from '../../api/schema/enums.ts';
import { OPERATION_NAMES } from '../../api/schema/operations.ts';
import type { IcebergPartitionRow, PollRow, ShadowPartitionRow, ShadowTopicRow } from '../../api/schema/resources.ts';
import type { MemberVersion, UpgradeStatus } from '../../api/schema/upgrade.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import { formatByteRate, formatCount, shortEnum } from '../../report/format-units.ts';
import { followsSource } from '../../report/timeline/detectors/shadow-topics.ts';
import type { Timeline } from '../../report/timeline/timeline.ts';
import { pollTime, type TimelineEvent } from '../../report/timeline/types.ts';
import { sparkOf } from './histories.ts';
import { lagMarks, type Fact, type OperationStatus, type OverviewData, type StateAt } from './source.ts';
import type { Thresholds } from '../../report/timeline/thresholds.ts';
import type { IcebergStatus } from '../../api/schema/iceberg.ts';

/** What the overview reads from the source. */
export interface OverviewSource {
  polls(): readonly PollRow[];
  stateAt<R = object>(
    resource:
      'connections' | 'shadow-topics' | 'shadow-partitions' | 'iceberg-partitions' | 'upgrade' | 'upgrade-members',
    at: bigint,
  ): StateAt<R>;
  icebergCatalog(at: bigint): IcebergStatus['catalog'] | undefined;
  seriesIfReady(): Timeline['series'] | undefined;
  timelineReady(): boolean;
  timeline(): readonly TimelineEvent[];
  /** the thresholds in force (the lag marks) */
  readonly thresholds?: Thresholds;
}

const LATEST_EVENTS = 30;

/** Per operation, its last poll at or before `at` and how many polls (and failures) so far. */
export function operationStatuses(polls: readonly PollRow[], at: bigint): OperationStatus[] {
  return OPERATION_NAMES.map((operation) => {
    let last: PollRow | undefined;
    let total = 0;
    let failed = 0;
    for (const p of polls) {
      if (p.operation !== operation || pollTime(p) > at) continue;
      total++;
      if (p.outcome !== 'ok') failed++;
      last = p;
    }
    const base = {
      operation,
      total,
      failed,
      ok: last?.outcome === 'ok',
      outcome: last === undefined ? 'never polled' : sanitizeCell(last.outcome),
    };
    return last === undefined ? base : { ...base, poll: last };
  });
}

function seriesSpark(series: Timeline['series'] | undefined, name: string, at: bigint): string | undefined {
  const s = series?.find((x) => x.name === name);
  if (s === undefined) return undefined;
  const times: bigint[] = [];
  const values: number[] = [];
  for (let i = 0; i < s.times.length; i++) {
    if ((s.times[i] as bigint) > at) break;
    times.push(s.times[i] as bigint);
    values.push(s.values[i] as number);
  }
  return values.length === 0 ? undefined : sparkOf(times, values);
}

/** The overview at `at`. */
export function buildOverview(source: OverviewSource, at: bigint): OverviewData {
  const facts: Fact[] = [];
  const marks = lagMarks(source);
  const conns = source.stateAt<KafkaConnection>('connections', at);
  if (conns.poll !== undefined) {
    let open = 0;
    let produce = 0;
    let fetch = 0;
    for (const c of conns.rows) {
      if (c.state.endsWith('_OPEN')) open++;
      produce += Number(c.recentRequestStatistics.produceBytes);
      fetch += Number(c.recentRequestStatistics.fetchBytes);
    }
    const spark = seriesSpark(source.seriesIfReady(), 'connections.open', at);
    facts.push({
      label: 'connections',
      value: `${open.toLocaleString('en-US')} open of ${conns.rows.length.toLocaleString('en-US')}`,
      ...(spark ? { spark } : {}),
    });
    facts.push({ label: 'produce', value: formatByteRate(produce / 60) });
    facts.push({ label: 'fetch', value: formatByteRate(fetch / 60) });
  }
  const parts = source.stateAt<ShadowPartitionRow>('shadow-partitions', at);
  if (parts.poll !== undefined) {
    // the lag the timeline's shadow.lag-high watches: topics failed over or promoted no longer follow their source
    const detached = new Set(
      source
        .stateAt<ShadowTopicRow>('shadow-topics', at)
        .rows.filter((t) => !followsSource(t.status.state))
        .map((t) => `${t.shadowLinkName}\u0000${t.name}`),
    );
    let worst: ShadowPartitionRow | undefined;
    for (const p of parts.rows) {
      if (detached.has(`${p.shadowLinkName}\u0000${p.topicName}`)) continue;
      if (worst === undefined || p.lag > worst.lag) worst = p;
    }
    const where =
      worst === undefined
        ? ''
        : `${sanitizeCell(worst.shadowLinkName)}/${sanitizeCell(worst.topicName)} p${worst.partitionId}`;
    facts.push(
      worst === undefined || worst.lag <= 0n
        ? { label: 'shadow lag', value: '✓ all shadow partitions caught up', token: 'ok' }
        : worst.lag <= marks.shadowLag
          ? {
              label: 'shadow lag',
              value: `✓ worst ${formatCount(worst.lag)} records (${where}), under ${formatCount(marks.shadowLag)}`,
              token: 'ok',
            }
          : { label: 'shadow lag', value: `▲ worst ${formatCount(worst.lag)} records: ${where}`, token: 'warn' },
    );
  }
  const ice = source.stateAt<IcebergPartitionRow>('iceberg-partitions', at);
  if (ice.poll !== undefined) {
    const catalog = source.icebergCatalog(at);
    let lag = 0n;
    let worst: IcebergPartitionRow | undefined;
    for (const p of ice.rows) {
      lag += p.commitLag;
      if (worst === undefined || p.commitLag > worst.commitLag) worst = p;
    }
    const where =
      worst !== undefined && worst.commitLag > 0n
        ? ` (worst ${sanitizeCell(worst.topic)} p${worst.partition}: ${formatCount(worst.commitLag)})`
        : '';
    const reach =
      catalog === undefined
        ? ''
        : catalog.reachable
          ? 'catalog ✓ reachable, '
          : `catalog ✖ unreachable (${sanitizeCell(catalog.errorCode)}), `;
    const bad = catalog !== undefined && !catalog.reachable;
    const lagging = worst !== undefined && worst.commitLag > marks.commitLag;
    facts.push({
      label: 'Iceberg',
      value: `${reach}commit lag ${formatCount(lag)} records${where}`,
      token: bad ? 'error' : lagging ? 'warn' : 'ok',
    });
  }
  const up = source.stateAt<UpgradeStatus>('upgrade', at);
  const status = up.rows[0];
  if (status !== undefined) {
    const members = source.stateAt<MemberVersion>('upgrade-members', at).rows;
    const releases = [...new Set(members.map((m) => sanitizeCell(m.releaseVersion)))].join(', ');
    const state = shortEnum(FinalizationState, status.state);
    const down = members.filter((m) => !m.alive).length;
    facts.push({
      label: 'upgrade',
      value: `${state === 'FINALIZED' ? '✓' : '▲'} ${state}, active version ${status.activeVersion}, releases ${releases || '-'}${down > 0 ? `, ${down} member(s) down` : ''}`,
      token: state === 'FINALIZED' && down === 0 ? 'ok' : 'warn',
    });
  }
  let events: TimelineEvent[] = [];
  if (source.timelineReady()) {
    events = source
      .timeline()
      .filter((e) => e.start <= at)
      .slice(-LATEST_EVENTS)
      .reverse();
  } else facts.push({ label: 'timeline', value: '… computing events', token: 'muted' });
  return { operations: operationStatuses(source.polls(), at), facts, events, eventsReady: source.timelineReady() };
}
