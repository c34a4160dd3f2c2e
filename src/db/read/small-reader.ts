/**
 * Reading the five small operations back: each stored answer reconstructed exactly (order,
 * unknown fields), and flattened into the rows of the resources it feeds.
 */
import type { SqlSession } from '../sql-session.ts';
import { SmallRowsAhead, docIdsOf, type SmallTable } from './small-rows-ahead.ts';
import { parseJsonLossless, type JsonValue } from '../../api/codec/lossless-json.ts';
import type {
  IcebergPartitionRow,
  ShadowPartitionRow,
  ShadowTaskRow,
  ShadowTopicRow,
} from '../../api/schema/resources.ts';
import type { OperationName, ResponseOf } from '../../api/schema/operations.ts';
import { storedIn } from '../schema/operation-storage.ts';
import { SchemaRegistrySyncStatus, ShadowLinkConfigurations } from '../../api/schema/shadow-link.ts';
import type { ShadowTopic, ShadowTopicPartition } from '../../api/schema/shadow-topic.ts';
import { decodeMessage } from '../../api/wire/decode.ts';
import type { Resolver } from '../encoding/dictionary.ts';
import { decoding } from '../errors.ts';
import type { icebergSample, linkSample, upgradeSample } from '../schema/schema.ts';
import type {
  icebergPartitionSample,
  icebergTopicSample,
  shadowPartitionSample,
  shadowTaskSample,
  shadowTopicSample,
  upgradeMemberSample,
} from '../schema/schema-custom.ts';
import { fromSqlInt, parseExtra, withExtras, type ExtraJson } from '../encoding/sql-values.ts';
import type { TupleOf } from '../schema/table-rows.ts';

type Link = TupleOf<typeof linkSample, ['name', 'uid', 'state', 'configurations', 'syncedProperties', 'srStatus']>;
type Task = TupleOf<typeof shadowTaskSample, ['name', 'state', 'reason', 'brokerId', 'shard', 'unknown']>;
type Topic = TupleOf<
  typeof shadowTopicSample,
  ['pos', 'name', 'topicId', 'sourceTopicName', 'sourceTopicId', 'state', 'unknown', 'link']
>;
type Partition = TupleOf<
  typeof shadowPartitionSample,
  [
    'topicPos',
    'partitionId',
    'highWatermark',
    'sourceHighWatermark',
    'sourceLastStableOffset',
    'sourceLastUpdated',
    'unknown',
  ]
>;
type Upgrade = TupleOf<
  typeof upgradeSample,
  ['activeVersion', 'versionAfterFinalization', 'autoFinalization', 'state']
>;
type Member = TupleOf<
  typeof upgradeMemberSample,
  ['nodeId', 'alive', 'logicalVersion', 'releaseVersion', 'versionKnown', 'unknown']
>;
type Iceberg = TupleOf<typeof icebergSample, ['reachable', 'errorCode', 'errorMessage']>;
type IcebergTopic = TupleOf<typeof icebergTopicSample, ['pos', 'topic', 'lifecycleState', 'unknown']>;
type IcebergPartition = TupleOf<
  typeof icebergPartitionSample,
  ['topicPos', 'partition', 'commitLag', 'lastCommittedOffset', 'lastTranslatedOffset', 'unknown']
>;
/** An answer of one of the five small operations. */
export type SmallAnswer = ResponseOf<Exclude<OperationName, 'ListKafkaConnections'>>;

/** Puts the unknown fields and absent names stored at `path` back on a rebuilt message. */
const withUnknown = withExtras;

const bool = (v: bigint): boolean => v !== 0n;
const int = (v: bigint): number => Number(v);
/** An INTEGER column of an int64 field (always written, NULL only for values beyond int64, which int64 fields cannot hold). */
const i64 = (v: bigint | null): bigint => v ?? 0n;

/** Reconstructs small answers from their per-poll rows. */
export class SmallReader {
  readonly #r: Resolver;
  /** the rows of each poll, read ahead over the polls a scan announces (small-rows-ahead.ts) */
  readonly ahead: SmallRowsAhead;

  constructor(sqlite: SqlSession, resolver: Resolver) {
    this.#r = resolver;
    // a scan reads many polls' rows: their names from the dictionary loaded at once (when it is small), not one by one
    this.ahead = new SmallRowsAhead(sqlite, (read) => {
      resolver.preload();
      resolver.loadDocs(docIdsOf(read));
    });
  }

  #rows<R>(table: SmallTable, poll: number): R[] {
    return this.ahead.rows(table, poll) as R[];
  }

  #s(v: bigint): string {
    return this.#r.s(int(v));
  }

  /** The stored answer of a successful poll of a small operation (damaged rows: CorruptDataError naming them). */
  answer(op: Exclude<OperationName, 'ListKafkaConnections'>, poll: number, extraText: string | null): SmallAnswer {
    return decoding({ table: storedIn(op), poll }, () => this.#answer(op, poll, extraText));
  }

  #answer(op: Exclude<OperationName, 'ListKafkaConnections'>, poll: number, extraText: string | null): SmallAnswer {
    const extra = parseExtra(extraText);
    switch (op) {
      case 'GetShadowLink':
        return withUnknown({ shadowLink: this.#link(poll, extra) }, extra, '');
      case 'ListShadowTopics':
        return withUnknown({ shadowTopics: this.#topics(poll).map((t) => t.topic) }, extra, '');
      case 'GetShadowTopic': {
        const t = this.#topics(poll)[0];
        if (t === undefined) throw new Error(`GetShadowTopic poll ${poll} has no stored topic`);
        return withUnknown({ shadowTopic: t.topic }, extra, '');
      }
      case 'GetUpgradeStatus':
        return this.#upgrade(poll, extra);
      case 'GetIcebergStatus':
        return this.#iceberg(poll, extra);
    }
  }

  #link(poll: number, extra: ExtraJson | undefined): ResponseOf<'GetShadowLink'>['shadowLink'] {
    const r = this.#rows<Link>('link', poll)[0];
    if (r === undefined) throw new Error(`GetShadowLink poll ${poll} has no stored link`);
    const doc = (id: bigint): JsonValue => parseJsonLossless(this.#r.doc(int(id)));
    const tasks = this.#rows<Task>('tasks', poll).map((t) =>
      withUnknown(
        { name: this.#s(t[0]), state: this.#s(t[1]), reason: this.#s(t[2]), brokerId: int(t[3]), shard: int(t[4]) },
        parseExtra(t[5]),
        '',
      ),
    );
    const status = withUnknown(
      {
        state: this.#s(r[2]),
        shadowTopics: this.#topics(poll).map((t) => t.topic),
        syncedShadowTopicProperties: doc(r[4]) as string[],
        taskStatuses: tasks,
        schemaRegistrySyncStatus: decodeMessage(SchemaRegistrySyncStatus, doc(r[5])),
      },
      extra,
      'status',
    );
    return withUnknown(
      {
        name: this.#s(r[0]),
        uid: this.#s(r[1]),
        configurations: decodeMessage(ShadowLinkConfigurations, doc(r[3])),
        status,
      },
      extra,
      'shadowLink',
    ) as ResponseOf<'GetShadowLink'>['shadowLink'];
  }

  #topics(poll: number): { link: string; topic: ShadowTopic }[] {
    const parts = new Map<number, ShadowTopicPartition[]>();
    for (const p of this.#rows<Partition>('partitions', poll)) {
      const x = parseExtra(p[6]);
      const list = parts.get(int(p[0])) ?? [];
      list.push(
        withUnknown(
          {
            partitionId: i64(p[1]),
            highWatermark: i64(p[2]),
            sourceHighWatermark: i64(p[3]),
            sourceLastStableOffset: i64(p[4]),
            sourceLastUpdatedTimestamp: fromSqlInt(p[5], 'source_last_updated', x),
          },
          x,
          '',
        ),
      );
      parts.set(int(p[0]), list);
    }
    return this.#rows<Topic>('topics', poll).map((t) => {
      const x = parseExtra(t[6]);
      const topic = withUnknown(
        {
          name: this.#s(t[1]),
          topicId: this.#s(t[2]),
          sourceTopicName: this.#s(t[3]),
          sourceTopicId: this.#s(t[4]),
          status: withUnknown({ state: this.#s(t[5]), partitionInformation: parts.get(int(t[0])) ?? [] }, x, 'status'),
        },
        x,
        '',
      ) as ShadowTopic;
      return { link: this.#s(t[7]), topic };
    });
  }

  #upgrade(poll: number, extra: ExtraJson | undefined): ResponseOf<'GetUpgradeStatus'> {
    const r = this.#rows<Upgrade>('upgrade', poll)[0];
    if (r === undefined) throw new Error(`GetUpgradeStatus poll ${poll} has no stored status`);
    const members = this.#rows<Member>('members', poll).map((m) =>
      withUnknown(
        {
          alive: bool(m[1]),
          logicalVersion: m[2],
          nodeId: int(m[0]),
          releaseVersion: this.#s(m[3]),
          versionKnown: bool(m[4]),
        },
        parseExtra(m[5]),
        '',
      ),
    );
    return withUnknown(
      {
        activeVersion: r[0],
        autoFinalizationEnabled: bool(r[2]),
        members,
        state: this.#s(r[3]),
        versionAfterFinalization: r[1],
      },
      extra,
      '',
    ) as ResponseOf<'GetUpgradeStatus'>;
  }

  #iceberg(poll: number, extra: ExtraJson | undefined): ResponseOf<'GetIcebergStatus'> {
    const r = this.#rows<Iceberg>('iceberg', poll)[0];
    if (r === undefined) throw new Error(`GetIcebergStatus poll ${poll} has no stored status`);
    const parts = new Map<number, ResponseOf<'GetIcebergStatus'>['topics'][number]['partitions']>();
    for (const p of this.#rows<IcebergPartition>('icebergPartitions', poll)) {
      const part: ResponseOf<'GetIcebergStatus'>['topics'][number]['partitions'][number] = {
        partition: int(p[1]),
        commitLag: i64(p[2]),
      };
      if (p[3] !== null) part.lastCommittedOffset = p[3];
      if (p[4] !== null) part.lastTranslatedOffset = p[4];
      const list = parts.get(int(p[0])) ?? [];
      list.push(withUnknown(part, parseExtra(p[5]), ''));
      parts.set(int(p[0]), list);
    }
    const topics = this.#rows<IcebergTopic>('icebergTopics', poll).map((t) =>
      withUnknown(
        { topic: this.#s(t[1]), lifecycleState: this.#s(t[2]), partitions: parts.get(int(t[0])) ?? [] },
        parseExtra(t[3]),
        '',
      ),
    );
    return withUnknown(
      {
        catalog: withUnknown(
          { reachable: bool(r[0]), errorCode: this.#s(r[1]), errorMessage: this.#s(r[2]) },
          extra,
          'catalog',
        ),
        topics,
      },
      extra,
      '',
    ) as ResponseOf<'GetIcebergStatus'>;
  }

  /** The shadow topics of a poll of any of the three operations that carry them, with their link. */
  topicsOf(poll: number): { link: string; topic: ShadowTopic }[] {
    return decoding({ table: storedIn('ListShadowTopics'), poll }, () => this.#topics(poll));
  }
}

/** Flattens a shadow topic into its resource row. */
export function shadowTopicRow(link: string, t: ShadowTopic): ShadowTopicRow {
  const row: ShadowTopicRow = { shadowLinkName: link, ...t };
  return row;
}

/** Flattens a shadow topic's partitions into resource rows (with the derived lag). */
export function shadowPartitionRows(link: string, t: ShadowTopic): ShadowPartitionRow[] {
  return t.status.partitionInformation.map((p): ShadowPartitionRow => ({
    shadowLinkName: link,
    topicName: t.name,
    ...p,
    lag: p.sourceHighWatermark - p.highWatermark,
  }));
}

/** Flattens a link's task statuses into resource rows. */
export function shadowTaskRows(link: ResponseOf<'GetShadowLink'>['shadowLink']): ShadowTaskRow[] {
  return link.status.taskStatuses.map((t): ShadowTaskRow => ({ shadowLinkName: link.name, ...t }));
}

/** Flattens Iceberg topics into partition rows. */
export function icebergPartitionRows(status: ResponseOf<'GetIcebergStatus'>): IcebergPartitionRow[] {
  return status.topics.flatMap((t) =>
    t.partitions.map((p): IcebergPartitionRow => ({ topic: t.topic, lifecycleState: t.lifecycleState, ...p })),
  );
}
