/** Answers of the five small operations for the store tests, server style, with variations. */
import type { ResponseOf } from '../../src/api/schema/operations.ts';
import type { ShadowTopic } from '../../src/api/schema/shadow-topic.ts';
import { ShadowLinkConfigurations } from '../../src/api/schema/shadow-link.ts';
import { defaultMessage } from '../../src/api/wire/defaults.ts';

const T0 = 1_756_720_974_000_000_000n;
const MAX = 9_223_372_036_854_775_807n;

/** A shadow topic with partitions; `v` varies the numbers, `odd` adds unknown fields and edge values. */
export function shadowTopic(name: string, v: number, odd = false): ShadowTopic {
  const parts: ShadowTopic['status']['partitionInformation'] = Array.from({ length: 3 + (v % 2) }, (_, i) => ({
    partitionId: BigInt(i),
    highWatermark: BigInt(1000 * v + i),
    sourceHighWatermark: BigInt(1000 * v + i + 7 * (v % 3)),
    sourceLastStableOffset: BigInt(1000 * v + i + 3),
    sourceLastUpdatedTimestamp: T0 + BigInt(v) * 60_000_000_000n,
  }));
  const t: ShadowTopic = {
    name,
    topicId: `id-${name}`,
    sourceTopicName: name,
    sourceTopicId: `src-${name}`,
    status: {
      state: v % 5 === 4 ? 'SHADOW_TOPIC_STATE_FAULTED' : 'SHADOW_TOPIC_STATE_ACTIVE',
      partitionInformation: parts,
    },
  };
  if (odd) {
    t.$unknown = { replicationFactor: 3, note: 'lone \ud800 surrogate' };
    t.status.$unknown = { paused_by: ['ops'] };
    parts[0]!.highWatermark = MAX;
    parts[0]!.$unknown = { epoch: 2n ** 60n + 1n };
    parts[1]!.sourceLastUpdatedTimestamp = 253_402_300_799_999_999_999n; // 9999-12-31T23:59:59.999999999Z: beyond int64
  }
  return t;
}

/** A GetShadowLink answer: configuration with one-of alternatives, tasks, topics, sync status. */
export function shadowLinkAnswer(v: number, odd = false): ResponseOf<'GetShadowLink'> {
  const configurations = defaultMessage(ShadowLinkConfigurations);
  const co = configurations.clientOptions;
  co.bootstrapServers = ['src-1:9092', 'src-2:9092'];
  co.clientId = 'shadow-client';
  co.authenticationConfiguration = {
    scramConfiguration: {
      username: 'replicator',
      scramMechanism: 'SCRAM_MECHANISM_SCRAM_SHA_512',
      passwordSet: true,
      passwordSetAt: T0,
    },
  };
  co.tlsSettings = {
    enabled: true,
    doNotSetSniHostname: false,
    tlsPemSettings: { ca: '-----BEGIN CERTIFICATE-----', cert: '', keyFingerprint: 'abc=' },
  };
  co.fetchMaxBytes = v % 4 === 0 ? 0 : 1_048_576;
  co.effectiveFetchMaxBytes = 20_971_520;
  const tm = configurations.topicMetadataSyncOptions;
  tm.autoCreateShadowTopicFilters = [
    { filterType: 'FILTER_TYPE_INCLUDE', name: 'orders.', patternType: 'PATTERN_TYPE_PREFIX' },
  ];
  tm.interval = 30_000_000_000n;
  tm.effectiveInterval = 30_000_000_000n;
  tm.startAtTimestamp = T0 - 86_400_000_000_000n;
  configurations.schemaRegistrySyncOptions = { shadowSchemaRegistryTopic: {} };
  const answer: ResponseOf<'GetShadowLink'> = {
    shadowLink: {
      name: 'dr-link',
      uid: '2f1c3a9e-1111-4c4c-8888-0123456789ab',
      configurations,
      status: {
        state: v % 7 === 6 ? 'SHADOW_LINK_STATE_PAUSED' : 'SHADOW_LINK_STATE_ACTIVE',
        shadowTopics: [shadowTopic('orders', v, odd), shadowTopic('payments', v + 1)],
        syncedShadowTopicProperties: ['retention.ms', 'cleanup.policy'],
        taskStatuses: [0, 1, 2].map((b) => ({
          name: 'topic-sync',
          state: b === v % 3 ? 'TASK_STATE_LINK_UNAVAILABLE' : 'TASK_STATE_ACTIVE',
          reason: b === v % 3 ? 'source unreachable' : '',
          brokerId: b,
          shard: 0,
        })),
        schemaRegistrySyncStatus: {
          currentSync: { syncType: 'SCHEMA_REGISTRY_SYNC_TYPE_TAIL', summary: syncCounters(v) },
          lastFullSync: syncCounters(v - 1),
          totalsSinceTaskStart: syncCounters(v * 10),
          inventory: {
            selectedSourceSubjects: 12n,
            selectedSourceSubjectVersions: 40n,
            destinationSubjects: 12n,
            destinationSubjectVersions: BigInt(40 + v),
          },
          lastErrorMessage: '',
        },
      },
    },
  };
  if (odd) {
    answer.$unknown = { nextPageToken: '' };
    answer.shadowLink.$unknown = { createdBy: 'admin' };
    answer.shadowLink.status.$unknown = { lagBytes: MAX };
    answer.shadowLink.status.taskStatuses[1]!.$unknown = { since: '2025-01-01T00:00:00Z' };
    co.$unknown = { futureKnob: true };
  }
  return answer;
}

function syncCounters(
  v: number,
): ResponseOf<'GetShadowLink'>['shadowLink']['status']['schemaRegistrySyncStatus']['lastFullSync'] {
  return {
    compatibilityConfigsChanged: BigInt(v),
    errors: 0n,
    modesChanged: 1n,
    subjectVersionsChanged: BigInt(v * 3),
    unsupportedFeaturesRemoved: 0n,
    startTime: T0,
    finishTime: 0n,
  };
}

/** A GetUpgradeStatus answer. */
export function upgradeAnswer(v: number, odd = false): ResponseOf<'GetUpgradeStatus'> {
  const members: ResponseOf<'GetUpgradeStatus'>['members'] = [0, 1, 2].map((n) => ({
    alive: !(odd && n === 2),
    logicalVersion: BigInt(14 + (n < v % 4 ? 1 : 0)),
    nodeId: n,
    releaseVersion: n < v % 4 ? 'v26.2.1' : 'v26.1.4',
    versionKnown: true,
  }));
  const a: ResponseOf<'GetUpgradeStatus'> = {
    activeVersion: 14n,
    autoFinalizationEnabled: v % 2 === 0,
    members,
    state: v % 4 === 0 ? 'FINALIZATION_STATE_FINALIZED' : 'FINALIZATION_STATE_UPGRADE_IN_PROGRESS',
    versionAfterFinalization: 14n,
  };
  if (odd) {
    a.$unknown = { clusterVersion: '26.2' };
    members[0]!.$unknown = { rack: 'a' };
    a.activeVersion = MAX;
  }
  return a;
}

/** A GetIcebergStatus answer (some offsets genuinely absent). */
export function icebergAnswer(v: number, odd = false): ResponseOf<'GetIcebergStatus'> {
  const a: ResponseOf<'GetIcebergStatus'> = {
    catalog: {
      reachable: v % 5 !== 3,
      errorCode: v % 5 === 3 ? 'IO_ERROR' : '',
      errorMessage: v % 5 === 3 ? 'timeout' : '',
    },
    topics: ['clicks', 'orders'].map((topic, ti) => ({
      topic,
      lifecycleState: 'ICEBERG_LIFECYCLE_STATE_LIVE',
      partitions: Array.from({ length: 2 + ti }, (_, p) => {
        const part: ResponseOf<'GetIcebergStatus'>['topics'][number]['partitions'][number] = {
          partition: p,
          commitLag: BigInt(v * 10 + p),
        };
        if (v > 0 || p > 0) part.lastTranslatedOffset = BigInt(v * 1000 + p);
        if (v > 1) part.lastCommittedOffset = BigInt(v * 900 + p);
        return part;
      }),
    })),
  };
  if (odd) {
    a.$unknown = { coordinator: 2 };
    a.catalog.$unknown = { url: 'http://catalog' };
    a.topics[0]!.$unknown = { tableName: 'db.clicks' };
    a.topics[0]!.partitions[0]!.$unknown = { files: 3 };
    a.topics[1]!.partitions[1]!.lastTranslatedOffset = MAX;
  }
  return a;
}
