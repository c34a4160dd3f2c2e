import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutPresence } from '../helpers/presence.ts';
import { CallError, ConnectClient, Secret, type CallResult } from '../../src/api/client/index.ts';
import {
  KafkaConnection,
  ShadowLink,
  ShadowTopic,
  MemberVersion,
  IcebergTopic,
  IcebergPartition,
} from '../../src/api/schema/index.ts';
import type { ResponseOf } from '../../src/api/schema/operations.ts';
import { OPERATIONS } from '../../src/api/schema/operations.ts';
import { parseTimestamp } from '../../src/api/codec/timestamp.ts';
import { defaultMessage } from '../../src/api/wire/defaults.ts';
import { encodeAnswer } from '../../src/api/wire/answers.ts';
import { answer, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';

const PASSWORD = 'pw-Sup3r-S3cret-7d1f';
const TOKEN = 'tok-Very-Secret-Bearer-19a2';
const BIG = 9007199254740993n; // 2^53 + 1: not representable as a JS number
const TS = parseTimestamp('2025-09-01T10:22:54.123456789Z');

let server: LoopbackServer;
let next: { status: number; body: string } = { status: 200, body: '{}' };
const failures: CallError[] = [];

function clientFor(
  auth: 'basic' | 'bearer' | 'none' = 'basic',
  extra: Partial<ConstructorParameters<typeof ConnectClient>[0]> = {},
) {
  return new ConnectClient({
    baseUrl: server.url,
    auth:
      auth === 'basic'
        ? { kind: 'basic', username: 'admin', password: new Secret(PASSWORD) }
        : auth === 'bearer'
          ? { kind: 'bearer', token: new Secret(TOKEN) }
          : undefined,
    ...extra,
  });
}

function ok<T>(result: CallResult<T>): T {
  if (!result.ok) {
    failures.push(result.error);
    throw new Error(`call failed: ${result.error.describe()}`);
  }
  return result.value;
}

beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => answer(res, next.status, next.body));
});
afterAll(async () => {
  await server.close();
});

const connection = {
  ...defaultMessage(KafkaConnection),
  uid: '8b1f0c1e-0000-4000-8000-000000000001',
  nodeId: 3,
  shardId: 1,
  clientId: 'franz-go',
  state: 'KAFKA_CONNECTION_STATE_OPEN',
  apiVersions: { '0': 9, '3': 12 },
  openTime: TS,
  idleDuration: 1_500_000_000n,
  source: { ipAddress: '10.0.0.7', port: 53211 },
  totalRequestStatistics: {
    fetchBytes: BIG,
    produceBatchCount: 2n,
    produceBytes: 9223372036854775807n,
    requestCount: 40n,
  },
} as const;

const shadowTopic = {
  ...defaultMessage(ShadowTopic),
  name: 'orders',
  sourceTopicName: 'orders',
  status: {
    state: 'SHADOW_TOPIC_STATE_ACTIVE',
    partitionInformation: [
      {
        partitionId: 0n,
        highWatermark: BIG,
        sourceHighWatermark: BIG + 10n,
        sourceLastStableOffset: BIG + 9n,
        sourceLastUpdatedTimestamp: TS,
      },
    ],
  },
} as const;

const fixtures = {
  ListKafkaConnections: { connections: [connection, defaultMessage(KafkaConnection)], totalSize: 1234567890123456789n },
  GetShadowTopic: { shadowTopic },
  ListShadowTopics: { shadowTopics: [shadowTopic, defaultMessage(ShadowTopic)] },
  GetShadowLink: {
    shadowLink: (() => {
      const link = defaultMessage(ShadowLink);
      link.name = 'dr-link';
      link.uid = '0f4e';
      link.status.state = 'SHADOW_LINK_STATE_ACTIVE';
      link.status.shadowTopics = [shadowTopic as never];
      link.configurations.clientOptions.bootstrapServers = ['src-1:9092', 'src-2:9092'];
      link.configurations.clientOptions.authenticationConfiguration = {
        scramConfiguration: {
          username: 'replicator',
          scramMechanism: 'SCRAM_MECHANISM_SCRAM_SHA_512',
          passwordSet: true,
          passwordSetAt: TS,
        },
      };
      link.status.schemaRegistrySyncStatus.inventory.destinationSubjects = BIG;
      return link;
    })(),
  },
  GetUpgradeStatus: {
    activeVersion: 17n,
    autoFinalizationEnabled: true,
    state: 'FINALIZATION_STATE_READY_TO_FINALIZE',
    versionAfterFinalization: 18n,
    members: [
      {
        ...defaultMessage(MemberVersion),
        alive: true,
        logicalVersion: BIG,
        nodeId: 1,
        releaseVersion: 'v26.2.1',
        versionKnown: true,
      },
    ],
  },
  GetIcebergStatus: {
    catalog: { reachable: false, errorCode: 'timed_out', errorMessage: 'catalog did not answer' },
    topics: [
      {
        ...defaultMessage(IcebergTopic),
        topic: 'events',
        lifecycleState: 'ICEBERG_LIFECYCLE_STATE_LIVE',
        partitions: [
          { partition: 0, commitLag: 5n, lastCommittedOffset: BIG, lastTranslatedOffset: BIG + 5n },
          { ...defaultMessage(IcebergPartition), partition: 1 },
        ],
      },
    ],
  },
} as const;

/** Compact style: defaults omitted, int64 as bare (even > 2^53) numbers, some snake_case keys. */
const compact: Record<keyof typeof fixtures, { json: string; check: (v: never) => void }> = {
  ListKafkaConnections: {
    json: `{"connections":[{"node_id":3,"state":"KAFKA_CONNECTION_STATE_OPEN","totalRequestStatistics":{"produceBytes":${BIG}}}],"totalSize":"1"}`,
    check: (v: ResponseOf<'ListKafkaConnections'>) => {
      expect(v.totalSize).toBe(1n);
      expect(withoutPresence(v.connections[0])).toEqual({
        ...defaultMessage(KafkaConnection),
        nodeId: 3,
        state: 'KAFKA_CONNECTION_STATE_OPEN',
        totalRequestStatistics: { fetchBytes: 0n, produceBatchCount: 0n, produceBytes: BIG, requestCount: 0n },
      });
      expect(v.connections[0]!.$absent).toContain('clientId');
      expect(v.connections[0]!.totalRequestStatistics.$absent).toEqual([
        'fetchBytes',
        'produceBatchCount',
        'requestCount',
      ]);
    },
  },
  GetShadowTopic: {
    json: `{"shadowTopic":{"name":"orders","status":{"partitionInformation":[{"highWatermark":${BIG}}]}}}`,
    check: (v: ResponseOf<'GetShadowTopic'>) => {
      expect(v.shadowTopic.name).toBe('orders');
      expect(v.shadowTopic.status.state).toBe('SHADOW_TOPIC_STATE_UNSPECIFIED');
      expect(v.shadowTopic.status.partitionInformation[0]?.highWatermark).toBe(BIG);
      expect(v.shadowTopic.status.partitionInformation[0]?.sourceLastUpdatedTimestamp).toBe(0n);
    },
  },
  ListShadowTopics: {
    json: '{}',
    check: (v: ResponseOf<'ListShadowTopics'>) => expect(v).toEqual({ shadowTopics: [], $absent: ['shadowTopics'] }),
  },
  GetShadowLink: {
    json: '{"shadowLink":{"name":"dr-link"}}',
    check: (v: ResponseOf<'GetShadowLink'>) => {
      const expected = defaultMessage(ShadowLink);
      expected.name = 'dr-link';
      expect(withoutPresence(v.shadowLink)).toEqual(expected);
      expect(v.shadowLink.$absent).toEqual(['uid', 'configurations', 'status']);
    },
  },
  GetUpgradeStatus: {
    json: `{"activeVersion":${BIG},"members":[{"nodeId":2}]}`,
    check: (v: ResponseOf<'GetUpgradeStatus'>) => {
      expect(v.activeVersion).toBe(BIG);
      expect(v.versionAfterFinalization).toBe(0n);
      expect(v.members).toEqual([
        {
          ...defaultMessage(MemberVersion),
          nodeId: 2,
          $absent: ['alive', 'logicalVersion', 'releaseVersion', 'versionKnown'],
        },
      ]);
    },
  },
  GetIcebergStatus: {
    json: '{"topics":[{"topic":"events","partitions":[{"partition":4}]}]}',
    check: (v: ResponseOf<'GetIcebergStatus'>) => {
      expect(withoutPresence(v.catalog)).toEqual({ reachable: false, errorCode: '', errorMessage: '' });
      expect(v.$absent).toEqual(['catalog']);
      expect(v.topics[0]?.partitions).toEqual([{ partition: 4, commitLag: 0n, $absent: ['commitLag'] }]);
      expect('lastCommittedOffset' in v.topics[0]!.partitions[0]!).toBe(false);
    },
  },
};

const requests = {
  ListKafkaConnections: { filter: 'state = KAFKA_CONNECTION_STATE_OPEN', orderBy: 'idle_duration desc', pageSize: 50 },
  GetShadowTopic: { name: 'orders', shadowLinkName: 'dr-link' },
  ListShadowTopics: { shadowLinkName: 'dr-link' },
  GetShadowLink: { name: 'dr-link' },
  GetUpgradeStatus: {},
  GetIcebergStatus: { topicsFilter: ['events'] },
} as const;

type Op = keyof typeof fixtures;
const OPS = Object.keys(fixtures) as Op[];

/** Calls an operation through a widened signature (the per-operation types are checked above). */
function callAny(client: ConnectClient, op: Op, request: unknown): Promise<CallResult<unknown>> {
  const call = client.call.bind(client) as unknown as (op: Op, r: unknown) => Promise<CallResult<unknown>>;
  return call(op, request);
}

describe('ConnectClient success', () => {
  it.each(OPS)('%s: server-style answer (every default written) decodes exactly', async (op) => {
    const body = encodeAnswer(op, fixtures[op] as never);
    next = { status: 200, body };
    const client = clientFor();
    try {
      const result = await callAny(client, op, requests[op]);
      const value = ok(result);
      expect(value).toEqual(fixtures[op]);
      if (!result.ok) return;
      expect(result.httpStatus).toBe(200);
      expect(result.body.toString('utf8')).toBe(body);
      expect(result.bytes).toBe(Buffer.byteLength(body));
      expect(result.elapsedMs).toBeGreaterThanOrEqual(0);
      const seen = server.requests.at(-1)!;
      expect(seen.method).toBe('POST');
      expect(seen.path).toBe(`/platform.core.admin.v2.${OPERATIONS[op].service}/${op}`);
      expect(JSON.parse(seen.body.toString('utf8'))).toEqual(requests[op]);
    } finally {
      await client.close();
    }
  });

  it.each(OPS)('%s: compact answer (defaults omitted, bare int64) decodes with defaults', async (op) => {
    next = { status: 200, body: compact[op].json };
    const client = clientFor('bearer');
    try {
      compact[op].check(ok(await callAny(client, op, requests[op])) as never);
    } finally {
      await client.close();
    }
  });

  it('int64 values above 2^53 survive exactly (typed call)', async () => {
    next = { status: 200, body: encodeAnswer('ListKafkaConnections', fixtures.ListKafkaConnections as never) };
    const client = clientFor();
    const value = ok(await client.call('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 }));
    expect(value.totalSize).toBe(1234567890123456789n);
    expect(value.connections[0]?.totalRequestStatistics.fetchBytes).toBe(BIG);
    expect(value.connections[0]?.totalRequestStatistics.produceBytes).toBe(9223372036854775807n);
    await client.close();
  });

  it('sends Connect headers and HTTP Basic credentials', async () => {
    next = { status: 200, body: '{}' };
    const client = clientFor('basic', { timeoutMs: 4321, userAgent: 'flightrec-test/1' });
    ok(await client.call('GetUpgradeStatus', {}));
    const h = server.requests.at(-1)!.headers;
    expect(h['connect-protocol-version']).toBe('1');
    expect(h['content-type']).toBe('application/json');
    expect(h.accept).toBe('application/json');
    expect(h['connect-timeout-ms']).toBe('4321');
    expect(h['user-agent']).toBe('flightrec-test/1');
    expect(h.authorization).toBe(`Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`);
    await client.close();
  });

  it('sends a Bearer token; a per-call timeout overrides the header value', async () => {
    next = { status: 200, body: '{}' };
    const client = clientFor('bearer');
    ok(await client.call('GetUpgradeStatus', {}, { timeoutMs: 250 }));
    const h = server.requests.at(-1)!.headers;
    expect(h.authorization).toBe(`Bearer ${TOKEN}`);
    expect(h['connect-timeout-ms']).toBe('250');
    await client.close();
  });

  it('sends no authorization without auth, and 10000 ms as the default timeout', async () => {
    next = { status: 200, body: '{}' };
    const client = clientFor('none');
    ok(await client.call('GetUpgradeStatus', {}));
    const h = server.requests.at(-1)!.headers;
    expect(h.authorization).toBeUndefined();
    expect(h['connect-timeout-ms']).toBe('10000');
    await client.close();
  });

  it('honours a service prefix and a path prefix in the base URL', async () => {
    next = { status: 200, body: '{}' };
    const client = new ConnectClient({ baseUrl: `${server.url}/admin/`, servicePrefix: 'acme.core.admin.v2' });
    expect(client.urlOf('GetIcebergStatus')).toBe(
      `${server.url}/admin/acme.core.admin.v2.IcebergService/GetIcebergStatus`,
    );
    ok(await client.call('GetIcebergStatus', { topicsFilter: [] }));
    expect(server.requests.at(-1)!.path).toBe('/admin/acme.core.admin.v2.IcebergService/GetIcebergStatus');
    await client.close();
  });

  it('reuses the kept-alive connection for consecutive calls', async () => {
    next = { status: 200, body: '{}' };
    const client = clientFor();
    const before = server.requests.length;
    for (let i = 0; i < 6; i++) ok(await client.call('GetUpgradeStatus', {}));
    const ports = server.requests.slice(before).map((r) => r.remotePort);
    expect(ports).toHaveLength(6);
    // undici may open a second socket while the first is being released, but no more
    expect(new Set(ports).size).toBeLessThanOrEqual(2);
    await client.close();
  });

  it('never shows secrets in the client itself', () => {
    for (const client of [clientFor('basic'), clientFor('bearer')]) {
      const shown = [String(client), JSON.stringify(client), inspect(client, { depth: 10, showHidden: true })].join(
        '\n',
      );
      expect(shown).not.toContain(PASSWORD);
      expect(shown).not.toContain(TOKEN);
      expect(shown).not.toContain(Buffer.from(`admin:${PASSWORD}`).toString('base64'));
      expect(shown).toContain(server.url);
      void client.close();
    }
  });

  it('produced no failed call', () => {
    expect(failures.map((e) => e.describe())).toEqual([]);
  });
});
