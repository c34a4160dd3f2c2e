/**
 * Shadow topics (from ListShadowTopics, GetShadowTopic and GetShadowLink): state changes
 * (faulted, paused, failing over, failed over, promoting, promoted) and the replication lag
 * of each topic while it still follows its source.
 */
import type { ShadowTopicRow } from '../../../api/schema/resources.ts';
import { newSeries, type DetectorContext, type FrameDetector, type Series } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { StateIntervals } from '../state-intervals.ts';
import { entity } from '../types.ts';
import { TopicLag } from './shadow-lag.ts';

const TOPIC_SEVERITY = {
  SHADOW_TOPIC_STATE_FAULTED: 'error',
  SHADOW_TOPIC_STATE_PAUSED: 'warn',
  SHADOW_TOPIC_STATE_FAILING_OVER: 'warn',
  SHADOW_TOPIC_STATE_FAILED_OVER: 'info',
  SHADOW_TOPIC_STATE_PROMOTING: 'warn',
  SHADOW_TOPIC_STATE_PROMOTED: 'info',
  SHADOW_TOPIC_STATE_UNSPECIFIED: 'warn',
} as const;

/** True when a shadow topic in this state still follows its source: only then is its lag watched (and shown by fleet). */
export function followsSource(state: string): boolean {
  return !DETACHED.has(state);
}

/** States in which a shadow topic no longer follows its source. */
const DETACHED = new Set<string>([
  'SHADOW_TOPIC_STATE_FAILING_OVER',
  'SHADOW_TOPIC_STATE_FAILED_OVER',
  'SHADOW_TOPIC_STATE_PROMOTING',
  'SHADOW_TOPIC_STATE_PROMOTED',
]);

/** Detects topic state changes and lag trouble; records the total lag per link. */
export function shadowTopicsDetector(ctx: DetectorContext): FrameDetector<ShadowTopicRow> {
  const book = new IntervalBook();
  const states = new StateIntervals(book, {
    kind: 'shadow.topic-state',
    prefix: 'SHADOW_TOPIC_STATE_',
    severity: TOPIC_SEVERITY,
  });
  const lags = new Map<string, TopicLag>();
  const latest = new Map<string, Map<string, bigint>>();
  const series = new Map<string, Series>();

  return {
    frame(f) {
      const touched = new Set<string>();
      for (const t of f.rows) {
        const key = `${t.shadowLinkName}\u0000${t.name}`;
        const first = !lags.has(key);
        const ref = entity('shadow-topic', t.shadowLinkName, t.name);
        const related = [entity('link', t.shadowLinkName)];
        const label = `shadow topic ${t.name} of ${t.shadowLinkName}`;
        states.observe({
          key: `state\u0000${key}`,
          entity: ref,
          related,
          label,
          state: t.status.state,
          time: f.time,
          pollId: f.poll.id,
          first,
        });
        let lag = lags.get(key);
        if (lag === undefined)
          lags.set(key, (lag = new TopicLag(book, ctx.thresholds.shadow, `lag\u0000${key}`, ref, related, label)));
        if (DETACHED.has(t.status.state)) {
          lag.detach(f.time, f.poll.id);
          continue;
        }
        const reading = lag.observe(
          t.status.partitionInformation,
          f.time,
          f.poll.id,
          t.status.state !== 'SHADOW_TOPIC_STATE_PAUSED',
        );
        let perLink = latest.get(t.shadowLinkName);
        if (perLink === undefined) latest.set(t.shadowLinkName, (perLink = new Map()));
        perLink.set(t.name, reading.totalLag);
        touched.add(t.shadowLinkName);
        if (ctx.focus === ref) {
          let own = series.get(ref);
          if (own === undefined)
            series.set(ref, (own = newSeries(`shadow.lag/${t.shadowLinkName}/${t.name}`, 'records', ref)));
          own.times.push(f.time);
          own.values.push(Number(reading.totalLag));
        }
      }
      for (const link of touched) {
        let s = series.get(link);
        if (s === undefined) series.set(link, (s = newSeries(`shadow.lag/${link}`, 'records', entity('link', link))));
        let sum = 0n;
        for (const v of (latest.get(link) as Map<string, bigint>).values()) sum += v;
        // the topics of one round come in several frames of the same instant: one point for them all
        if (s.times.at(-1) === f.time) s.values[s.values.length - 1] = Number(sum);
        else {
          s.times.push(f.time);
          s.values.push(Number(sum));
        }
      }
    },
    finish() {
      return book.finish();
    },
    series() {
      return [...series.values()];
    },
  };
}
