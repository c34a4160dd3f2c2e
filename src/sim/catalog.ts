/** The client mix of the simulated cluster: applications, their Kafka clients, listeners and API use. */

/** What an application does on its connections. */
export type Role = 'producer' | 'txn' | 'consumer' | 'streams' | 'admin';
/** Listener names of the simulated brokers. */
export type ListenerName = 'internal' | 'external' | 'replication';
/** Authentication mechanism suffixes the simulator uses. */
export type Mechanism = 'SASL_SCRAM' | 'SASL_PLAIN' | 'SASL_OAUTHBEARER' | 'MTLS';

/** One client application: many connections share it. */
export interface AppProfile {
  readonly name: string;
  readonly principal: string;
  readonly software: string;
  readonly version: string;
  readonly role: Role;
  readonly listener: ListenerName;
  readonly mechanism: Mechanism;
  readonly group: string;
  readonly staticMembers: boolean;
  /** connections open for seconds, then the client goes away for a while */
  readonly shortLived: boolean;
  readonly weight: number;
  /** first three octets of the hosts' addresses */
  readonly subnet: string;
  /** number of hosts (pods) running it */
  readonly hosts: number;
  /** requests per second per connection, produce bytes per second, fetch bytes per second */
  readonly reqRate: number;
  readonly produceRate: number;
  readonly fetchRate: number;
}

const app = (
  p: Partial<AppProfile> & Pick<AppProfile, 'name' | 'principal' | 'software' | 'version' | 'role' | 'weight'>,
): AppProfile => ({
  listener: 'internal',
  mechanism: 'SASL_SCRAM',
  group: '',
  staticMembers: false,
  shortLived: false,
  subnet: '10.20.1',
  hosts: 6,
  reqRate: 4,
  produceRate: 0,
  fetchRate: 0,
  ...p,
});

/** The applications, in a stable order (a slot's application is chosen by weight). */
export const APPS: readonly AppProfile[] = [
  app({
    name: 'orders-service',
    principal: 'User:svc-orders',
    software: 'apache-kafka-java',
    version: '3.7.0',
    role: 'producer',
    weight: 10,
    subnet: '10.20.4',
    hosts: 8,
    reqRate: 40,
    produceRate: 180_000,
  }),
  app({
    name: 'payments-processor',
    principal: 'User:svc-payments',
    software: 'apache-kafka-java',
    version: '3.6.1',
    role: 'txn',
    group: 'payments',
    staticMembers: true,
    weight: 6,
    subnet: '10.20.7',
    hosts: 6,
    reqRate: 25,
    produceRate: 60_000,
    fetchRate: 55_000,
  }),
  app({
    name: 'inventory-sync',
    principal: 'User:svc-inventory',
    software: 'franz-go',
    version: 'v1.17.1',
    role: 'consumer',
    group: 'inventory-sync',
    weight: 6,
    subnet: '10.20.9',
    hosts: 4,
    reqRate: 3,
    fetchRate: 90_000,
  }),
  app({
    name: 'analytics-etl',
    principal: 'User:svc-analytics',
    software: 'librdkafka',
    version: '2.4.0',
    role: 'consumer',
    group: 'analytics-etl',
    listener: 'external',
    weight: 8,
    subnet: '172.18.30',
    hosts: 10,
    reqRate: 2.5,
    fetchRate: 400_000,
  }),
  app({
    name: 'clickstream-gateway',
    principal: 'User:clickstream-gw',
    software: 'confluent-kafka-go',
    version: '2.4.0',
    role: 'producer',
    listener: 'external',
    mechanism: 'SASL_OAUTHBEARER',
    weight: 10,
    subnet: '172.18.12',
    hosts: 12,
    reqRate: 60,
    produceRate: 750_000,
  }),
  app({
    name: 'fraud-scoring',
    principal: 'User:svc-fraud',
    software: 'apache-kafka-java',
    version: '3.7.0',
    role: 'streams',
    group: 'fraud-scoring',
    staticMembers: true,
    weight: 5,
    subnet: '10.20.11',
    hosts: 5,
    reqRate: 18,
    produceRate: 30_000,
    fetchRate: 120_000,
  }),
  app({
    name: 'notifications',
    principal: 'User:svc-notify',
    software: 'KafkaJS',
    version: '2.2.4',
    role: 'consumer',
    group: 'notifications',
    listener: 'external',
    mechanism: 'SASL_PLAIN',
    weight: 5,
    subnet: '172.18.40',
    hosts: 4,
    reqRate: 2,
    fetchRate: 12_000,
  }),
  app({
    name: 'legacy-billing',
    principal: 'User:svc-billing',
    software: 'kafka-python',
    version: '2.0.2',
    role: 'consumer',
    group: 'billing',
    mechanism: 'SASL_PLAIN',
    weight: 3,
    subnet: '10.20.14',
    hosts: 2,
    reqRate: 1.5,
    fetchRate: 4_000,
  }),
  app({
    name: 'audit-shipper',
    principal: 'User:CN=audit-shipper.prod.internal',
    software: 'sarama',
    version: '1.43.2',
    role: 'producer',
    listener: 'external',
    mechanism: 'MTLS',
    weight: 4,
    subnet: '172.18.50',
    hosts: 3,
    reqRate: 12,
    produceRate: 25_000,
  }),
  app({
    name: 'mirror-connect',
    principal: 'User:svc-connect',
    software: 'apache-kafka-java',
    version: '3.7.0',
    role: 'consumer',
    group: 'connect-mirror',
    listener: 'replication',
    weight: 3,
    subnet: '10.40.2',
    hosts: 3,
    reqRate: 6,
    fetchRate: 250_000,
  }),
  app({
    name: 'reporting-batch',
    principal: 'User:svc-reporting',
    software: 'apache-kafka-java',
    version: '3.7.0',
    role: 'admin',
    shortLived: true,
    weight: 3,
    subnet: '10.20.20',
    hosts: 2,
    reqRate: 1,
  }),
  app({
    name: 'ops-cli',
    principal: 'User:admin',
    software: 'franz-go',
    version: 'v1.17.1',
    role: 'admin',
    shortLived: true,
    weight: 1,
    subnet: '10.20.99',
    hosts: 1,
    reqRate: 0.5,
  }),
];

const TOTAL_WEIGHT = APPS.reduce((s, a) => s + a.weight, 0);

/** The application index for a number in [0, 1), by weight. */
export function pickApp(u: number): number {
  let x = u * TOTAL_WEIGHT;
  for (let i = 0; i < APPS.length; i++) {
    x -= (APPS[i] as AppProfile).weight;
    if (x < 0) return i;
  }
  return APPS.length - 1;
}

/** Kafka API keys used per role. */
const KEYS_BY_ROLE: Record<Role, readonly number[]> = {
  producer: [18, 17, 36, 3, 0, 22],
  txn: [18, 17, 36, 3, 0, 22, 24, 25, 26, 28, 10, 11, 14, 12, 9, 8, 1, 13],
  consumer: [18, 17, 36, 3, 10, 11, 14, 12, 9, 8, 2, 1, 13],
  streams: [18, 17, 36, 3, 0, 22, 10, 11, 14, 12, 9, 8, 2, 1, 13, 19, 32],
  admin: [18, 17, 36, 3, 32, 19, 20, 60, 15, 16],
};

/** Highest version per API key of a recent client. */
const MAX_VERSION: Record<number, number> = {
  0: 10,
  1: 16,
  2: 8,
  3: 12,
  8: 9,
  9: 9,
  10: 4,
  11: 9,
  12: 4,
  13: 5,
  14: 5,
  15: 5,
  16: 4,
  17: 1,
  18: 3,
  19: 7,
  20: 6,
  22: 4,
  24: 4,
  25: 3,
  26: 3,
  28: 3,
  32: 4,
  36: 2,
  60: 1,
};

/** How far behind the newest API versions each client software is. */
const AGE: Record<string, number> = {
  'apache-kafka-java': 0,
  librdkafka: 1,
  'confluent-kafka-go': 1,
  'franz-go': 0,
  sarama: 2,
  KafkaJS: 5,
  'kafka-python': 7,
};

const cache = new Map<string, Record<string, number>>();

/** The apiVersions map of a connection (shared, read-only): highest version seen per key. */
export function apiVersionsFor(a: AppProfile): Record<string, number> {
  const k = `${a.software}/${a.role}`;
  let m = cache.get(k);
  if (m === undefined) {
    m = {};
    const age = AGE[a.software] ?? 0;
    for (const key of [...KEYS_BY_ROLE[a.role]].sort((x, y) => x - y)) {
      m[String(key)] = Math.max(0, (MAX_VERSION[key] ?? 1) - (key === 18 || key === 17 ? Math.min(age, 1) : age));
    }
    cache.set(k, m);
  }
  return m;
}

/** The main in-flight API key of a role (Produce for producers, Fetch for consumers). */
export function mainApiKey(role: Role): number {
  return role === 'producer' || role === 'txn' ? 0 : role === 'admin' ? 3 : 1;
}

/** True when the listener uses TLS. */
export function listenerTls(l: ListenerName): boolean {
  return l !== 'internal';
}
