/**
 * The rows an answer carried, for the ROWS of `query polls`: connections; shadow topics and their
 * partitions (a link counts with its tasks and topics); upgrade members; Iceberg topics and
 * their partitions. Read loosely: an answer missing a list (a client double) counts 0 there.
 */
import type { OperationName, ResponseOf } from '../api/schema/operations.ts';

type List = readonly unknown[] | undefined;
interface LooseTopic {
  readonly status?: { readonly partitionInformation?: List };
  readonly partitions?: List;
}
interface LooseAnswer {
  readonly connections?: List;
  readonly shadowLink?: {
    readonly status?: { readonly taskStatuses?: List; readonly shadowTopics?: readonly LooseTopic[] };
  };
  readonly shadowTopics?: readonly LooseTopic[];
  readonly shadowTopic?: LooseTopic;
  readonly members?: List;
  readonly topics?: readonly LooseTopic[];
}

const count = (xs: List): number => xs?.length ?? 0;

function topicRows(topics: readonly LooseTopic[] | undefined): number {
  let n = 0;
  for (const t of topics ?? []) n += 1 + count(t.status?.partitionInformation);
  return n;
}

/** How many rows (entities) the answer of `op` carried. */
export function answerRows<N extends OperationName>(op: N, answer: ResponseOf<N>): number {
  const a = answer as LooseAnswer;
  switch (op) {
    case 'ListKafkaConnections':
      return count(a.connections);
    case 'GetShadowLink': {
      const status = a.shadowLink?.status;
      return a.shadowLink === undefined ? 0 : 1 + count(status?.taskStatuses) + topicRows(status?.shadowTopics);
    }
    case 'ListShadowTopics':
      return topicRows(a.shadowTopics);
    case 'GetShadowTopic':
      return a.shadowTopic === undefined ? 0 : topicRows([a.shadowTopic]);
    case 'GetUpgradeStatus':
      return count(a.members);
    case 'GetIcebergStatus': {
      let n = 0;
      for (const t of a.topics ?? []) n += 1 + count(t.partitions);
      return n;
    }
    default:
      return 0;
  }
}
