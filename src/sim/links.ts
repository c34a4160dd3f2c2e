/** Shadow link configurations (every option group, effective values, never a password) and topic layout. */
import type { ShadowLinkConfigurations } from '../api/schema/shadow-link.ts';
import { hash, hashString, unit, uuidFrom } from './rng.ts';
import { NS_PER_S } from './time.ts';

/** The default shadow links of a world. */
export const DEFAULT_LINKS = ['dr-primary', 'analytics-mirror'] as const;

/** The shadow link task names. */
export const TASKS = {
  topicSync: 'source_topic_sync',
  offsetSync: 'consumer_offset_sync',
  securitySync: 'security_sync',
  roleSync: 'role_sync',
  schemaSync: 'schema_registry_sync',
} as const;

/** One partition of a shadow topic: its source traffic and replication delay. */
export interface PartitionSpec {
  readonly id: number;
  /** records per second at the source */
  readonly rate: number;
  /** source high watermark at the world start */
  readonly h0: number;
  /** mean replication delay, seconds */
  readonly delay: number;
  readonly h: number;
  /** the source topic is transactional: the last stable offset trails */
  readonly transactional: boolean;
}

/** One shadow topic. */
export interface TopicSpec {
  readonly name: string;
  readonly topicId: string;
  readonly sourceTopicId: string;
  readonly partitions: readonly PartitionSpec[];
}

/** One shadow link: identity, configuration and topics. */
export interface LinkSpec {
  readonly index: number;
  readonly name: string;
  readonly uid: string;
  readonly schemaApi: boolean;
  readonly configurations: ShadowLinkConfigurations;
  readonly topics: readonly TopicSpec[];
}

const TOPIC_SETS: readonly (readonly string[])[] = [
  ['orders', 'payments', 'inventory', 'customers'],
  ['clickstream', 'page-views', 'sessions', '_schemas'],
];

const filter = (type: 'INCLUDE' | 'EXCLUDE', name: string, pattern: 'LITERAL' | 'PREFIX') => ({
  filterType: `FILTER_TYPE_${type}` as const,
  name,
  patternType: `PATTERN_TYPE_${pattern}` as const,
});

const S = (n: bigint): bigint => n * NS_PER_S;

function configurations(
  seed: number,
  index: number,
  name: string,
  start: bigint,
  topics: readonly string[],
): ShadowLinkConfigurations {
  const h = hash(seed, hashString(name), 31);
  const schemaApi = index % 2 === 0;
  const setAt = start - S(BigInt(86_400 * (3 + (h % 20)) + (hash(h, 1) % 86_400)));
  const region = ['east', 'west', 'eu', 'ap'][index % 4] as string;
  const tls = {
    enabled: true,
    doNotSetSniHostname: false,
    ...(index % 2 === 0
      ? {
          tlsFileSettings: {
            caPath: '/etc/platform/certs/source-ca.pem',
            certPath: '/etc/platform/certs/link.crt',
            keyPath: '/etc/platform/certs/link.key',
          },
        }
      : {
          tlsPemSettings: {
            ca: '-----BEGIN CERTIFICATE-----\nMIIBsimulatedCA\n-----END CERTIFICATE-----\n',
            cert: '-----BEGIN CERTIFICATE-----\nMIIBsimulatedLink\n-----END CERTIFICATE-----\n',
            keyFingerprint: 'q3VxT1l0c2ltdWxhdGVka2V5ZmluZ2VycHJpbnQ=',
          },
        }),
  };
  const auth =
    index % 2 === 0
      ? {
          scramConfiguration: {
            username: `shadow-${name}`,
            scramMechanism: 'SCRAM_MECHANISM_SCRAM_SHA_512' as const,
            passwordSet: true,
            passwordSetAt: setAt,
          },
        }
      : { plainConfiguration: { username: `shadow-${name}`, passwordSet: true, passwordSetAt: setAt } };
  const fetchWait = index % 2 === 0 ? 0 : 250;
  return {
    clientOptions: {
      bootstrapServers: [0, 1, 2].map((i) => `kafka-${i}.${region}.source.example.com:9093`),
      clientId: `shadow-link-${name}`,
      sourceClusterId: uuidFrom(seed, h, 2),
      authenticationConfiguration: auth,
      tlsSettings: tls,
      connectionTimeoutMs: 0,
      fetchMaxBytes: index % 2 === 0 ? 0 : 52_428_800,
      fetchMinBytes: 0,
      fetchPartitionMaxBytes: 0,
      fetchWaitMaxMs: fetchWait,
      metadataMaxAgeMs: 0,
      retryBackoffMs: index % 2 === 0 ? 0 : 250,
      effectiveConnectionTimeoutMs: 1000,
      effectiveFetchMaxBytes: index % 2 === 0 ? 20_971_520 : 52_428_800,
      effectiveFetchMinBytes: 5_242_880,
      effectiveFetchPartitionMaxBytes: 5_242_880,
      effectiveFetchWaitMaxMs: fetchWait || 500,
      effectiveMetadataMaxAgeMs: 10_000,
      effectiveRetryBackoffMs: index % 2 === 0 ? 100 : 250,
    },
    topicMetadataSyncOptions: {
      autoCreateShadowTopicFilters: [
        ...topics
          .filter((t) => t !== '_schemas')
          .slice(0, 2)
          .map((t) => filter('INCLUDE', t, 'LITERAL')),
        filter('INCLUDE', topics[2] ?? 'events', 'PREFIX'),
        filter('EXCLUDE', `${topics[0] ?? 'tmp'}-scratch`, 'PREFIX'),
      ],
      interval: 0n,
      effectiveInterval: S(30n),
      paused: false,
      excludeDefault: false,
      syncedShadowTopicProperties: ['cleanup.policy', 'retention.ms'].slice(0, 1 + (index % 2)),
      ...(index % 2 === 0 ? { startAtEarliest: {} } : { startAtTimestamp: start - S(7n * 86_400n) }),
    },
    consumerOffsetSyncOptions: {
      groupFilters: [filter('INCLUDE', '*', 'LITERAL'), filter('EXCLUDE', 'console-consumer-', 'PREFIX')],
      interval: index % 2 === 0 ? 0n : S(15n),
      effectiveInterval: index % 2 === 0 ? S(30n) : S(15n),
      paused: false,
    },
    securitySyncOptions: {
      aclFilters: [
        {
          accessFilter: {
            host: '',
            principal: '',
            operation: 'ACL_OPERATION_ANY',
            permissionType: 'ACL_PERMISSION_TYPE_ANY',
          },
          resourceFilter: {
            name: topics[0] ?? '',
            patternType: 'ACL_PATTERN_PREFIXED',
            resourceType: 'ACL_RESOURCE_TOPIC',
          },
        },
        {
          accessFilter: {
            host: '*',
            principal: 'User:svc-orders',
            operation: 'ACL_OPERATION_READ',
            permissionType: 'ACL_PERMISSION_TYPE_ALLOW',
          },
          resourceFilter: { name: '', patternType: 'ACL_PATTERN_ANY', resourceType: 'ACL_RESOURCE_GROUP' },
        },
      ],
      interval: 0n,
      effectiveInterval: S(30n),
      paused: false,
    },
    roleSyncOptions: {
      roleNameFilters: index % 2 === 0 ? [filter('INCLUDE', 'ops-', 'PREFIX')] : [],
      interval: 0n,
      effectiveInterval: S(30n),
      paused: index % 2 === 1,
    },
    schemaRegistrySyncOptions: schemaApi
      ? {
          shadowSchemaRegistryApi: {
            sourceUrl: `https://schema-registry.${region}.source.example.com:8081`,
            authOptions: { basic: { username: `sr-shadow-${name}`, passwordSet: true, passwordSetAt: setAt } },
            tlsSettings: { enabled: true, doNotSetSniHostname: false },
            sourceFilter: { contexts: ['.'], subjects: [':.billing:invoices-value'] },
            destination: { identity: {} },
            fullSyncInterval: 0n,
            tailInterval: 0n,
            maxSourceRequestsPerSecond: 0,
            effectiveFullSyncInterval: S(300n),
            effectiveTailInterval: S(10n),
            effectiveMaxSourceRequestsPerSecond: 30,
            paused: false,
            unsupportedSchemaFeaturePolicy: 'UNSUPPORTED_SCHEMA_FEATURE_POLICY_REMOVE',
          },
        }
      : { shadowSchemaRegistryTopic: {} },
  };
}

/** Builds the static description of the world's shadow links. */
export function buildLinks(seed: number, names: readonly string[], start: bigint): LinkSpec[] {
  return names.map((name, index) => {
    const h = hash(seed, hashString(name), 17);
    const topicNames = TOPIC_SETS[index] ?? ['events', 'metrics', 'audit-log'];
    const topics: TopicSpec[] = topicNames.map((t, ti) => {
      const th = hash(h, ti, 5);
      const count = t === '_schemas' ? 1 : ([1, 3, 6, 12][th % 4] ?? 3);
      const partitions: PartitionSpec[] = [];
      for (let p = 0; p < count; p++) {
        const ph = hash(th, p, 9);
        partitions.push({
          id: p,
          rate: t === '_schemas' ? 0.02 : 2 + 600 * unit(ph, 1) ** 2,
          h0: Math.floor(100_000 + 2e9 * unit(ph, 2)),
          delay: 0.3 + 2.2 * unit(ph, 3),
          h: ph,
          transactional: t === 'payments',
        });
      }
      return { name: t, topicId: uuidFrom(seed, th, 1), sourceTopicId: uuidFrom(seed, th, 2), partitions };
    });
    const configurationsValue = configurations(seed, index, name, start, topicNames);
    return {
      index,
      name,
      uid: uuidFrom(seed, h, 0),
      schemaApi: configurationsValue.schemaRegistrySyncOptions.shadowSchemaRegistryApi !== undefined,
      configurations: configurationsValue,
      topics,
    };
  });
}
