/**
 * Ingest of the five small operations: shadow links (configuration and sync status as shared
 * documents), tasks, shadow topics and partitions, upgrade status and members, Iceberg status.
 * Each returns the poll's `extra` JSON (unknown fields and absent fields of the answer's fixed
 * parts) or null; rows keep theirs in their own `unknown` column.
 */
import type { SqlSession } from '../sql-session.ts';
import { stringifyJson } from '../../api/codec/lossless-json.ts';
import type { ResponseOf } from '../../api/schema/operations.ts';
import { SchemaRegistrySyncStatus, ShadowLinkConfigurations } from '../../api/schema/shadow-link.ts';
import type { ShadowTopic } from '../../api/schema/shadow-topic.ts';
import { encodeMessage } from '../../api/wire/encode.ts';
import type { DocStore, StringDict } from '../encoding/dictionary.ts';
import { bit, extraText, sqlInt, type BigValues } from '../encoding/sql-values.ts';

/** Writes the answers of the small operations (inside the caller's transaction). */
export class SmallIngest {
  readonly #dict: StringDict;
  readonly #docs: DocStore;
  readonly #q;

  constructor(sqlite: SqlSession, dict: StringDict, docs: DocStore) {
    this.#dict = dict;
    this.#docs = docs;
    this.#q = {
      link: sqlite.prepare(
        'INSERT INTO link_sample (poll, name, uid, state, configurations, synced_properties, sr_status) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      task: sqlite.prepare(
        'INSERT INTO shadow_task_sample (poll, pos, link, name, state, reason, broker_id, shard, unknown) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      topic: sqlite.prepare(
        `INSERT INTO shadow_topic_sample (poll, pos, link, name, topic_id, source_topic_name, source_topic_id, state, unknown)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      partition: sqlite.prepare(
        `INSERT INTO shadow_partition_sample (poll, topic_pos, pos, partition_id, high_watermark, source_high_watermark,
           source_last_stable_offset, source_last_updated, unknown) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      upgrade: sqlite.prepare(
        'INSERT INTO upgrade_sample (poll, active_version, version_after_finalization, auto_finalization, state) VALUES (?, ?, ?, ?, ?)',
      ),
      member: sqlite.prepare(
        `INSERT INTO upgrade_member_sample (poll, pos, node_id, alive, logical_version, release_version, version_known, unknown)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      iceberg: sqlite.prepare(
        'INSERT INTO iceberg_sample (poll, reachable, error_code, error_message) VALUES (?, ?, ?, ?)',
      ),
      icebergTopic: sqlite.prepare(
        'INSERT INTO iceberg_topic_sample (poll, pos, topic, lifecycle_state, unknown) VALUES (?, ?, ?, ?, ?)',
      ),
      icebergPartition: sqlite.prepare(
        `INSERT INTO iceberg_partition_sample (poll, topic_pos, pos, partition, commit_lag, last_committed_offset, last_translated_offset, unknown)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
  }

  /** GetShadowLink: the link, its tasks and its shadow topics. */
  shadowLink(poll: number, answer: ResponseOf<'GetShadowLink'>): string | null {
    const d = this.#dict;
    const link = answer.shadowLink;
    const status = link.status;
    this.#q.link.run(
      poll,
      d.id(link.name),
      d.id(link.uid),
      d.id(status.state),
      this.#docs.id(stringifyJson(encodeMessage(ShadowLinkConfigurations, link.configurations))),
      this.#docs.id(JSON.stringify(status.syncedShadowTopicProperties)),
      this.#docs.id(stringifyJson(encodeMessage(SchemaRegistrySyncStatus, status.schemaRegistrySyncStatus))),
    );
    const linkName = d.id(link.name);
    status.taskStatuses.forEach((t, i) => {
      const extra = extraText({ '': t.$unknown }, undefined, { '': t.$absent });
      this.#q.task.run(poll, i, linkName, d.id(t.name), d.id(t.state), d.id(t.reason), t.brokerId, t.shard, extra);
    });
    this.#topics(poll, link.name, status.shadowTopics);
    return extraText({ '': answer.$unknown, shadowLink: link.$unknown, status: status.$unknown }, undefined, {
      '': answer.$absent,
      shadowLink: link.$absent,
      status: status.$absent,
    });
  }

  /** ListShadowTopics: the topics of one link. */
  shadowTopics(poll: number, link: string, answer: ResponseOf<'ListShadowTopics'>): string | null {
    this.#topics(poll, link, answer.shadowTopics);
    return extraText({ '': answer.$unknown }, undefined, { '': answer.$absent });
  }

  /** GetShadowTopic: one topic. */
  shadowTopic(poll: number, link: string, answer: ResponseOf<'GetShadowTopic'>): string | null {
    this.#topics(poll, link, [answer.shadowTopic]);
    return extraText({ '': answer.$unknown }, undefined, { '': answer.$absent });
  }

  #topics(poll: number, link: string, topics: readonly ShadowTopic[]): void {
    const d = this.#dict;
    const linkId = d.id(link);
    topics.forEach((t, i) => {
      this.#q.topic.run(
        poll,
        i,
        linkId,
        d.id(t.name),
        d.id(t.topicId),
        d.id(t.sourceTopicName),
        d.id(t.sourceTopicId),
        d.id(t.status.state),
        extraText({ '': t.$unknown, status: t.status.$unknown }, undefined, {
          '': t.$absent,
          status: t.status.$absent,
        }),
      );
      t.status.partitionInformation.forEach((p, k) => {
        const big: BigValues = {};
        this.#q.partition.run(
          poll,
          i,
          k,
          p.partitionId,
          p.highWatermark,
          p.sourceHighWatermark,
          p.sourceLastStableOffset,
          sqlInt(p.sourceLastUpdatedTimestamp, 'source_last_updated', big),
          extraText({ '': p.$unknown }, big, { '': p.$absent }),
        );
      });
    });
  }

  /** GetUpgradeStatus: the singleton and its members. */
  upgrade(poll: number, answer: ResponseOf<'GetUpgradeStatus'>): string | null {
    const d = this.#dict;
    this.#q.upgrade.run(
      poll,
      answer.activeVersion,
      answer.versionAfterFinalization,
      bit(answer.autoFinalizationEnabled),
      d.id(answer.state),
    );
    answer.members.forEach((m, i) => {
      const extra = extraText({ '': m.$unknown }, undefined, { '': m.$absent });
      this.#q.member.run(
        poll,
        i,
        m.nodeId,
        bit(m.alive),
        m.logicalVersion,
        d.id(m.releaseVersion),
        bit(m.versionKnown),
        extra,
      );
    });
    return extraText({ '': answer.$unknown }, undefined, { '': answer.$absent });
  }

  /** GetIcebergStatus: the catalog, topics and partitions. */
  iceberg(poll: number, answer: ResponseOf<'GetIcebergStatus'>): string | null {
    const d = this.#dict;
    const c = answer.catalog;
    this.#q.iceberg.run(poll, bit(c.reachable), d.id(c.errorCode), d.id(c.errorMessage));
    answer.topics.forEach((t, i) => {
      this.#q.icebergTopic.run(
        poll,
        i,
        d.id(t.topic),
        d.id(t.lifecycleState),
        extraText({ '': t.$unknown }, undefined, { '': t.$absent }),
      );
      t.partitions.forEach((p, k) => {
        this.#q.icebergPartition.run(
          poll,
          i,
          k,
          p.partition,
          p.commitLag,
          p.lastCommittedOffset ?? null,
          p.lastTranslatedOffset ?? null,
          extraText({ '': p.$unknown }, undefined, { '': p.$absent }),
        );
      });
    });
    return extraText({ '': answer.$unknown, catalog: c.$unknown }, undefined, {
      '': answer.$absent,
      catalog: c.$absent,
    });
  }
}
