/**
 * An in-memory TimelineSource built from recorded answers (poll plus decoded answer), split
 * into resource rows the way the store does. For timeline cases kept as data files, and for
 * analysing answers that never went through a database.
 */
import type { OperationName, ResponseOf } from '../../api/schema/operations.ts';
import type { PollRow, ResourceName } from '../../api/schema/resources.ts';
import type { ShadowLink } from '../../api/schema/shadow-link.ts';
import type { ShadowTopic } from '../../api/schema/shadow-topic.ts';
import { mergedPerRound, roundsOf, roundWinners } from '../../db/read/sample-rounds.ts';
import { comparePolls } from './frames.ts';
import type { TimelineSource } from './timeline.ts';
import { pollTime } from './types.ts';

/** One recorded poll: the poll row and, when it succeeded, its decoded answer. */
export interface RecordedPoll {
  readonly poll: PollRow;
  readonly answer?: ResponseOf<OperationName>;
}

function topicRows(link: string, topics: readonly ShadowTopic[]): object[] {
  return topics.map((t) => ({ shadowLinkName: link, ...t }));
}

function linkOf(p: PollRow): string {
  const slash = p.target.indexOf('/');
  return slash < 0 ? p.target : p.target.slice(0, slash);
}

/** The rows an answer contributes to a resource (the store's split). */
export function rowsOf(resource: ResourceName, p: PollRow, answer: ResponseOf<OperationName>): object[] {
  const op = p.operation as OperationName;
  switch (resource) {
    case 'connections':
      return op === 'ListKafkaConnections' ? [...(answer as ResponseOf<'ListKafkaConnections'>).connections] : [];
    case 'shadow-links':
      return op === 'GetShadowLink' ? [(answer as ResponseOf<'GetShadowLink'>).shadowLink] : [];
    case 'shadow-tasks': {
      if (op !== 'GetShadowLink') return [];
      const l: ShadowLink = (answer as ResponseOf<'GetShadowLink'>).shadowLink;
      return l.status.taskStatuses.map((t) => ({ shadowLinkName: l.name, ...t }));
    }
    case 'shadow-topics':
    case 'shadow-partitions': {
      let topics: object[] = [];
      if (op === 'GetShadowLink') {
        const l = (answer as ResponseOf<'GetShadowLink'>).shadowLink;
        topics = topicRows(l.name, l.status.shadowTopics);
      } else if (op === 'ListShadowTopics')
        topics = topicRows(linkOf(p), (answer as ResponseOf<'ListShadowTopics'>).shadowTopics);
      else if (op === 'GetShadowTopic')
        topics = topicRows(linkOf(p), [(answer as ResponseOf<'GetShadowTopic'>).shadowTopic]);
      if (resource === 'shadow-topics') return topics;
      return (topics as (ShadowTopic & { shadowLinkName: string })[]).flatMap((t) =>
        t.status.partitionInformation.map((pi) => ({
          shadowLinkName: t.shadowLinkName,
          topicName: t.name,
          ...pi,
          lag: pi.sourceHighWatermark - pi.highWatermark,
        })),
      );
    }
    case 'upgrade':
      return op === 'GetUpgradeStatus' ? [answer] : [];
    case 'upgrade-members':
      return op === 'GetUpgradeStatus' ? [...(answer as ResponseOf<'GetUpgradeStatus'>).members] : [];
    case 'iceberg-topics':
      return op === 'GetIcebergStatus' ? [...(answer as ResponseOf<'GetIcebergStatus'>).topics] : [];
    case 'iceberg-partitions':
      return op === 'GetIcebergStatus'
        ? (answer as ResponseOf<'GetIcebergStatus'>).topics.flatMap((t) =>
            t.partitions.map((pp) => ({ topic: t.topic, lifecycleState: t.lifecycleState, ...pp })),
          )
        : [];
    case 'polls':
      return [p];
  }
}

/** The entity key of a shadow topic or partition row (other rows are never merged: any key does). */
function keyOf(row: object): string {
  const r = row as { shadowLinkName?: string; name?: string; topicName?: string; partitionId?: bigint };
  return [r.shadowLinkName, r.topicName ?? r.name, r.partitionId].map(String).join('\u0000');
}

/** A TimelineSource (and ReportReader subset) over recorded polls held in memory. */
export function memorySource(recorded: readonly RecordedPoll[]): TimelineSource {
  const sorted = [...recorded].sort((a, b) => comparePolls(a.poll, b.poll));
  const byId = new Map(sorted.map((r) => [r.poll.id, r]));
  const inRange = (p: PollRow, since?: bigint, until?: bigint, cluster?: string): boolean => {
    const t = pollTime(p);
    return (
      (since === undefined || t >= since) &&
      (until === undefined || t <= until) &&
      (cluster === undefined || p.cluster === cluster)
    );
  };
  return {
    polls(q) {
      const out = sorted
        .filter(
          (r) =>
            inRange(r.poll, q.since, q.until, q.cluster) &&
            (q.operation === undefined || r.poll.operation === q.operation),
        )
        .map((r) => r.poll);
      return q.limit !== undefined ? out.slice(0, q.limit) : out;
    },
    *samples(resource, q) {
      const all: { poll: PollRow; row: object; key: string }[] = [];
      for (const r of sorted) {
        if (r.answer === undefined || r.poll.outcome !== 'ok' || !inRange(r.poll, q.since, q.until, q.cluster))
          continue;
        for (const row of rowsOf(resource, r.poll, r.answer)) all.push({ poll: r.poll, row, key: keyOf(row) });
      }
      if (!mergedPerRound(resource)) return yield* all;
      // one sample per entity per round, as the store's reader gives them
      const polls = [...new Set(all.map((s) => s.poll))];
      const rounds = new Map(roundsOf(polls).map((n, i) => [polls[i] as PollRow, n]));
      yield* roundWinners(all, (s) => ({ poll: s.poll, round: rounds.get(s.poll) as number }));
    },
    reconstructAnswer(pollId) {
      const r = byId.get(pollId);
      return r?.answer === undefined ? {} : { answer: r.answer };
    },
  };
}
