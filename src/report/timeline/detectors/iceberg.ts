/**
 * Iceberg (GetIcebergStatus): the catalog unreachable (with its error code) and back, topic
 * lifecycle changes, commit lag above the threshold, and commits stalled while translation
 * advances (from the last commit seen until the next one).
 */
import type { IcebergCatalog as IcebergCatalogSchema, IcebergTopic } from '../../../api/schema/iceberg.ts';
import type { Infer } from '../../../api/schema/fields.ts';
import { formatHumanDuration } from '../../../api/codec/duration.ts';
import { newSeries, type DetectorContext, type FrameDetector, type Series } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { shortState } from '../state-intervals.ts';
import { entity } from '../types.ts';

/** The catalog part of an Iceberg status. */
export type IcebergCatalog = Infer<typeof IcebergCatalogSchema>;

interface TopicMemory {
  lifecycle: string;
  committed: Map<number, bigint>;
  translated: Map<number, bigint>;
  lastCommit: { time: bigint; pollId: bigint };
  /** intervals between polls that saw a commit, to learn the commit period */
  periods: bigint[];
  /** the first poll after the last commit at which the next commit was overdue */
  overdue: { time: bigint; pollId: bigint } | undefined;
  translatedSinceCommit: boolean;
}

function median(xs: readonly bigint[]): bigint | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return s[s.length >> 1];
}

const CATALOG = entity('iceberg-catalog', 'cluster');

/** The Iceberg detector: topics come as frames, the catalog of the same poll through `catalog`. */
export interface IcebergDetector extends FrameDetector<IcebergTopic> {
  /** Feeds the catalog status of one poll (before or after its topics). */
  catalog(c: IcebergCatalog, time: bigint, pollId: bigint): void;
}

/** Detects catalog outages, lifecycle changes, high commit lag and stalled commits. */
export function icebergDetector(ctx: DetectorContext): IcebergDetector {
  const th = ctx.thresholds.iceberg;
  const book = new IntervalBook();
  const topics = new Map<string, TopicMemory>();
  const lagSeries = newSeries('iceberg.commit-lag', 'records');
  /** the commit lag of the topic the timeline is asked about, when it is one */
  let topicLag: Series | undefined;
  let firstFrame = true;
  let lastCode = '';

  return {
    catalog(c, time, pollId) {
      if (c.reachable) {
        book.end('catalog', time, pollId, { reachable: 'true' });
        lastCode = '';
        return;
      }
      const text = `Iceberg catalog unreachable: ${c.errorCode || 'unknown error'}${c.errorMessage !== '' ? ` (${c.errorMessage})` : ''}`;
      book.start('catalog', {
        kind: 'iceberg.catalog-unreachable',
        severity: 'error',
        entity: CATALOG,
        start: time,
        description: text,
        before: { reachable: 'true' },
        pollId,
      });
      if (c.errorCode !== lastCode)
        book.update('catalog', {
          description: text,
          after: { reachable: 'false', errorCode: c.errorCode, errorMessage: c.errorMessage },
          pollId,
        });
      else book.update('catalog', { pollId });
      lastCode = c.errorCode;
    },
    frame(f) {
      const pollId = f.poll.id;
      let totalLag = 0n;
      const seen = new Set<string>();
      for (const t of f.rows) {
        seen.add(t.topic);
        const ref = entity('iceberg-topic', t.topic);
        let m = topics.get(t.topic);
        if (m === undefined) {
          m = {
            lifecycle: t.lifecycleState,
            committed: new Map(),
            translated: new Map(),
            lastCommit: { time: f.time, pollId },
            periods: [],
            overdue: undefined,
            translatedSinceCommit: false,
          };
          topics.set(t.topic, m);
          if (!firstFrame)
            book.point({
              kind: 'iceberg.topic-added',
              severity: 'info',
              entity: ref,
              start: f.time,
              description: `Iceberg topic ${t.topic} appeared (${shortState('ICEBERG_LIFECYCLE_STATE_', t.lifecycleState)})`,
              pollId,
            });
        } else if (m.lifecycle !== t.lifecycleState) {
          book.point({
            kind: 'iceberg.topic-lifecycle',
            severity: 'info',
            entity: ref,
            start: f.time,
            description: `Iceberg topic ${t.topic}: ${shortState('ICEBERG_LIFECYCLE_STATE_', m.lifecycle)} → ${shortState('ICEBERG_LIFECYCLE_STATE_', t.lifecycleState)}`,
            before: { lifecycleState: m.lifecycle },
            after: { lifecycleState: t.lifecycleState },
            pollId,
          });
          m.lifecycle = t.lifecycleState;
        }
        let maxLag = 0n;
        let committedMoved = false;
        for (const p of t.partitions) {
          if (p.commitLag > maxLag) maxLag = p.commitLag;
          totalLag += p.commitLag;
          const c = p.lastCommittedOffset;
          if (c !== undefined) {
            const before = m.committed.get(p.partition);
            if (before !== undefined && c > before) committedMoved = true;
            m.committed.set(p.partition, c);
          }
          const tr = p.lastTranslatedOffset;
          if (tr !== undefined) {
            const before = m.translated.get(p.partition);
            if (before !== undefined && tr > before) m.translatedSinceCommit = true;
            m.translated.set(p.partition, tr);
          }
        }
        if (ctx.focus === ref) {
          topicLag ??= newSeries(`iceberg.commit-lag/${t.topic}`, 'records', ref);
          topicLag.times.push(f.time);
          topicLag.values.push(Number(maxLag));
        }
        const lagKey = `lag\u0000${t.topic}`;
        if (maxLag > th.commitLag) {
          book.start(lagKey, {
            kind: 'iceberg.commit-lag-high',
            severity: 'warn',
            entity: ref,
            related: [CATALOG],
            start: f.time,
            description: '',
            pollId,
          });
          book.update(lagKey, {
            description: `Iceberg topic ${t.topic}: commit lag ${maxLag} records on one partition (threshold ${th.commitLag})`,
            after: { maxCommitLag: String(maxLag) },
            pollId,
          });
        } else {
          book.end(lagKey, f.time, pollId, { maxCommitLag: String(maxLag) });
        }
        const stallKey = `stall\u0000${t.topic}`;
        if (committedMoved) {
          book.end(stallKey, f.time, pollId, { maxCommitLag: String(maxLag) });
          if (!book.has(stallKey) && m.overdue === undefined) m.periods.push(f.time - m.lastCommit.time);
          if (m.periods.length > 8) m.periods.shift();
          m.lastCommit = { time: f.time, pollId };
          m.overdue = undefined;
          m.translatedSinceCommit = false;
          continue;
        }
        const period = median(m.periods);
        if (m.overdue === undefined && period !== undefined && f.time - m.lastCommit.time >= period)
          m.overdue = { time: f.time, pollId };
        if (m.translatedSinceCommit && f.time - m.lastCommit.time >= th.commitStall) {
          // the stall starts where the next commit was due (the last commit when the period is unknown)
          const from = m.overdue ?? m.lastCommit;
          book.start(stallKey, {
            kind: 'iceberg.commit-stall',
            severity: 'warn',
            entity: ref,
            related: [CATALOG],
            start: from.time,
            description: '',
            before: { lastCommit: String(m.lastCommit.pollId) },
            pollId: from.pollId,
          });
          book.update(stallKey, {
            description: `Iceberg topic ${t.topic}: no commit for ${formatHumanDuration(f.time - m.lastCommit.time)} while translation advances (commit lag up to ${maxLag})`,
            after: { maxCommitLag: String(maxLag) },
            pollId,
          });
        }
      }
      for (const [name] of topics) {
        if (seen.has(name) || f.rows.length === 0) continue;
        topics.delete(name);
        book.end(`lag\u0000${name}`, f.time, f.poll.id);
        book.end(`stall\u0000${name}`, f.time, f.poll.id);
        book.point({
          kind: 'iceberg.topic-removed',
          severity: 'info',
          entity: entity('iceberg-topic', name),
          start: f.time,
          description: `Iceberg topic ${name} no longer reported`,
          pollId,
        });
      }
      lagSeries.times.push(f.time);
      lagSeries.values.push(Number(totalLag));
      firstFrame = false;
    },
    finish() {
      return book.finish();
    },
    series(): Series[] {
      return topicLag === undefined ? [lagSeries] : [lagSeries, topicLag];
    },
  };
}
