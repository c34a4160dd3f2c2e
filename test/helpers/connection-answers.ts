/**
 * Deterministic synthetic ListKafkaConnections answers with churn, for the store's tests and
 * benchmark: a small world of connections that open, carry traffic, change a few attributes,
 * close (staying listed a while as recently closed) and disappear, poll after poll.
 */
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';

/** Options of a synthetic connection world. */
export interface ConnectionWorldOptions {
  /** connections open at any time (the answer also lists the recently closed ones) */
  readonly connections: number;
  /** fraction of open connections closed (and replaced by new ones) at each poll; 0.02 = 2 % */
  readonly churn?: number;
  readonly seed?: number;
  /** time of the first poll, ns since the epoch */
  readonly startNs?: bigint;
  /** time between polls, ns (default one minute) */
  readonly intervalNs?: bigint;
  readonly nodes?: number;
  /** polls a closed connection stays listed (default 2) */
  readonly keepClosedPolls?: number;
  /** put unknown fields (top level and nested) on some connections */
  readonly unknownFields?: boolean;
  /** put counters at the edges of int64 (up to 9223372036854775807) on some connections */
  readonly hugeCounters?: boolean;
  /** shuffle the answer order at every poll (default: by node, then by age) */
  readonly shuffle?: boolean;
}

/** One generated poll: its time and the decoded answer the server sent. */
export interface GeneratedPoll {
  readonly at: bigint;
  readonly answer: ListKafkaConnectionsResponse;
}

/** Deterministic PRNG (mulberry32) returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Profile = 'idle' | 'consumer' | 'producer' | 'both';
interface Sim {
  conn: KafkaConnection;
  profile: Profile;
  /** bytes per minute, requests per minute */
  rate: number;
  closedAtPoll: number;
}

const SOFTWARE = [
  ['apache-kafka-java', '3.7.1'],
  ['librdkafka', '2.5.0'],
  ['franz-go', '1.17.1'],
  ['sarama', '1.43.2'],
  ['kafka-python', '2.0.2'],
] as const;
const SERVICES = ['orders', 'billing', 'search', 'audit', 'ingest', 'fraud', 'ledger', 'notify'] as const;
const MINUTE = 60_000_000_000n;
/** Kafka API keys a client of each profile has used (besides the common ones). */
const API_KEYS: Record<string, number[]> = {
  idle: [19, 32],
  consumer: [1, 2, 8, 9, 11, 12, 13, 14],
  producer: [0, 22, 24, 25, 26],
  both: [0, 1, 2, 8, 9, 11, 12, 13, 14, 22],
};
const INT64_MAX = 9_223_372_036_854_775_807n;

/** A world of connections; `next()` advances one poll and returns the answer at that time. */
export class ConnectionWorld {
  readonly #opts: Required<Omit<ConnectionWorldOptions, 'unknownFields' | 'hugeCounters' | 'shuffle'>> &
    ConnectionWorldOptions;
  readonly #rnd: () => number;
  readonly #live: Sim[] = [];
  #poll = 0;
  #now: bigint;
  /** client hosts: connections from one host share its address */
  readonly #hosts: string[] = [];
  #serial = 0;

  constructor(opts: ConnectionWorldOptions) {
    this.#opts = {
      churn: 0.02,
      seed: 1,
      startNs: 1_756_720_974_000_000_000n,
      intervalNs: MINUTE,
      nodes: 6,
      keepClosedPolls: 2,
      ...opts,
    };
    this.#rnd = prng(this.#opts.seed);
    this.#now = this.#opts.startNs;
    for (let i = Math.max(20, Math.ceil(opts.connections / 8)); i > 0; i--) {
      this.#hosts.push(`10.${this.#int(4)}.${this.#int(256)}.${this.#int(256)}`);
    }
    for (let i = 0; i < opts.connections; i++) this.#live.push(this.#open(true));
  }

  /** Advances to the next poll (the first call returns the initial state) and returns its answer. */
  next(): GeneratedPoll {
    if (this.#poll > 0) this.#step();
    this.#poll++;
    const rows = this.#live.map((s) => cloneConnection(s.conn));
    if (this.#opts.shuffle) this.#shuffle(rows);
    else rows.sort((a, b) => a.nodeId - b.nodeId);
    return { at: this.#now, answer: { connections: rows, totalSize: BigInt(rows.length) } };
  }

  #int(n: number): number {
    return Math.floor(this.#rnd() * n);
  }
  #hex(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += this.#int(16).toString(16);
    return s;
  }
  #pick<T>(xs: readonly T[]): T {
    return xs[this.#int(xs.length)] as T;
  }
  #shuffle<T>(xs: T[]): void {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.#int(i + 1);
      [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
    }
  }

  #open(initial: boolean): Sim {
    const [software, version] = this.#pick(SOFTWARE);
    const service = this.#pick(SERVICES);
    const r = this.#rnd();
    const profile: Profile = r < 0.35 ? 'idle' : r < 0.65 ? 'consumer' : r < 0.92 ? 'producer' : 'both';
    const rate = Math.floor(1000 * 10 ** (this.#rnd() * 4)); // 1 kB .. 10 MB per minute
    const age = initial ? BigInt(this.#int(86_400)) * 1_000_000_000n : BigInt(this.#int(60_000)) * 1_000_000n;
    const group = profile === 'consumer' || profile === 'both' ? `${service}-consumer-${this.#int(12)}` : '';
    const apiVersions: Record<string, number> = {};
    const keys = [3, 10, 17, 18, 36, 60, ...(API_KEYS[profile] ?? [])];
    for (const k of keys.sort((a, b) => a - b)) apiVersions[String(k)] = 1 + ((k * 7 + software.length) % 13);
    const total = (): bigint => (initial ? BigInt(this.#int(1e6)) * BigInt(1 + this.#int(5000)) : 0n);
    this.#serial++;
    const conn: KafkaConnection = {
      apiVersions,
      authenticationInfo: {
        mechanism: this.#rnd() < 0.8 ? 'AUTHENTICATION_MECHANISM_SASL_SCRAM' : 'AUTHENTICATION_MECHANISM_MTLS',
        state: 'AUTHENTICATION_STATE_SUCCESS',
        userPrincipal: `svc-${service}`,
      },
      clientId: `${service}-${software}-${this.#int(40)}`,
      clientSoftwareName: software,
      clientSoftwareVersion: version,
      closeTime: 0n,
      groupId: group,
      groupInstanceId: group !== '' && this.#rnd() < 0.3 ? `${service}-instance-${this.#int(20)}` : '',
      groupMemberId: group === '' ? '' : `${service}-${this.#hex(8)}-${this.#hex(4)}-${this.#hex(12)}`,
      idleDuration: 0n,
      inFlightRequests: { hasMoreRequests: false, sampledInFlightRequests: [] },
      listenerName: this.#pick(['internal', 'internal', 'external']),
      nodeId: this.#int(this.#opts.nodes),
      openTime: this.#now - age - BigInt(this.#int(1_000_000_000)),
      recentRequestStatistics: { fetchBytes: 0n, produceBatchCount: 0n, produceBytes: 0n, requestCount: 0n },
      shardId: this.#int(4),
      source: { ipAddress: this.#pick(this.#hosts), port: 1024 + this.#int(64_000) },
      state: 'KAFKA_CONNECTION_STATE_OPEN',
      tlsInfo: { enabled: this.#rnd() < 0.7 },
      totalRequestStatistics: {
        fetchBytes: total(),
        produceBatchCount: total(),
        produceBytes: total(),
        requestCount: total(),
      },
      transactionalId: profile === 'producer' && this.#rnd() < 0.1 ? `tx-${service}-${this.#hex(6)}` : '',
      uid: `${this.#hex(8)}-${this.#hex(4)}-4${this.#hex(3)}-a${this.#hex(3)}-${this.#hex(12)}`,
    };
    if (this.#opts.unknownFields && this.#serial % 7 === 0) {
      conn.$unknown = { futureFlag: this.#serial % 2 === 0, futureInfo: { level: 3, tags: ['a', 'b'] } };
      conn.totalRequestStatistics.$unknown = { fetchRecords: 12n ** 18n };
      conn.source.$unknown = { zone: 'eu-1a' };
    }
    if (this.#opts.hugeCounters && this.#serial % 5 === 0) {
      conn.totalRequestStatistics.fetchBytes = INT64_MAX - BigInt(this.#int(1000));
      conn.totalRequestStatistics.requestCount = 2n ** 53n + 1n;
      conn.recentRequestStatistics.produceBytes = INT64_MAX;
    }
    const sim: Sim = { conn, profile, rate, closedAtPoll: -1 };
    this.#traffic(sim);
    return sim;
  }

  /** One minute of traffic: recent statistics, totals, idle time and in-flight sample. */
  #traffic(s: Sim): void {
    const c = s.conn;
    if (c.state !== 'KAFKA_CONNECTION_STATE_OPEN') return;
    const jitter = (): number => 0.5 + this.#rnd();
    const recent = c.recentRequestStatistics;
    const consumes = s.profile === 'consumer' || s.profile === 'both';
    const produces = s.profile === 'producer' || s.profile === 'both';
    const fetchBytes = consumes ? BigInt(Math.floor(s.rate * jitter())) : 0n;
    const batches = produces ? BigInt(Math.floor((s.rate / 16_000) * jitter()) + 1) : 0n;
    const produceBytes = produces ? BigInt(Math.floor(s.rate * jitter())) : 0n;
    const requests = s.profile === 'idle' ? BigInt(this.#rnd() < 0.1 ? 1 : 0) : BigInt(60 + this.#int(120)) + batches;
    const huge = recent.produceBytes === INT64_MAX;
    recent.fetchBytes = fetchBytes;
    recent.produceBatchCount = batches;
    recent.produceBytes = huge ? INT64_MAX : produceBytes;
    recent.requestCount = requests;
    const total = c.totalRequestStatistics;
    const add = (v: bigint, d: bigint): bigint => (v + d > INT64_MAX ? v : v + d);
    total.fetchBytes = add(total.fetchBytes, fetchBytes);
    total.produceBatchCount = add(total.produceBatchCount, batches);
    total.produceBytes = add(total.produceBytes, produceBytes);
    total.requestCount = add(total.requestCount, requests);
    const busy = s.profile !== 'idle' || requests > 0n;
    c.idleDuration = busy ? BigInt(this.#int(2000)) * 1_000_000n : c.idleDuration + this.#opts.intervalNs;
    const sampled = c.inFlightRequests.sampledInFlightRequests;
    sampled.length = 0;
    if (consumes && this.#rnd() < 0.5)
      sampled.push({ apiKey: 1, inFlightDuration: BigInt(this.#int(500)) * 1_000_000n });
    if (produces && this.#rnd() < 0.3) {
      for (let i = this.#int(3) + 1; i > 0; i--)
        sampled.push({ apiKey: 0, inFlightDuration: BigInt(this.#int(50_000)) * 1000n });
    }
    c.inFlightRequests.hasMoreRequests = sampled.length === 3 && this.#rnd() < 0.3;
  }

  #step(): void {
    this.#now += this.#opts.intervalNs;
    const keep = this.#opts.keepClosedPolls;
    for (let i = this.#live.length - 1; i >= 0; i--) {
      const s = this.#live[i]!;
      if (s.closedAtPoll >= 0 && this.#poll - s.closedAtPoll >= keep) this.#live.splice(i, 1);
    }
    const open = this.#live.filter((s) => s.conn.state === 'KAFKA_CONNECTION_STATE_OPEN');
    const closing = Math.round(open.length * this.#opts.churn);
    for (let i = 0; i < closing && open.length > 0; i++) {
      const s = open.splice(this.#int(open.length), 1)[0]!;
      s.conn.state = 'KAFKA_CONNECTION_STATE_CLOSED';
      s.conn.closeTime = this.#now - BigInt(this.#int(60_000)) * 1_000_000n;
      s.conn.recentRequestStatistics = { fetchBytes: 0n, produceBatchCount: 0n, produceBytes: 0n, requestCount: 0n };
      s.conn.inFlightRequests = { hasMoreRequests: false, sampledInFlightRequests: [] };
      s.closedAtPoll = this.#poll;
    }
    for (const s of this.#live) {
      this.#traffic(s);
      if (s.conn.groupId !== '' && this.#rnd() < 0.003) s.conn.groupMemberId = `rebalanced-${this.#hex(12)}`;
      if (this.#rnd() < 0.001) s.conn.apiVersions = { ...s.conn.apiVersions, '42': 3 };
    }
    for (let i = 0; i < closing; i++) this.#live.push(this.#open(false));
  }
}

/** A deep copy of a connection (much faster than structuredClone). */
export function cloneConnection(c: KafkaConnection): KafkaConnection {
  const copy: KafkaConnection = {
    ...c,
    apiVersions: { ...c.apiVersions },
    authenticationInfo: { ...c.authenticationInfo },
    inFlightRequests: {
      hasMoreRequests: c.inFlightRequests.hasMoreRequests,
      sampledInFlightRequests: c.inFlightRequests.sampledInFlightRequests.map((r) => ({ ...r })),
    },
    recentRequestStatistics: { ...c.recentRequestStatistics },
    source: { ...c.source },
    tlsInfo: { ...c.tlsInfo },
    totalRequestStatistics: { ...c.totalRequestStatistics },
  };
  if (c.$unknown !== undefined) copy.$unknown = structuredClone(c.$unknown);
  if (c.source.$unknown !== undefined) copy.source.$unknown = structuredClone(c.source.$unknown);
  if (c.totalRequestStatistics.$unknown !== undefined) {
    copy.totalRequestStatistics.$unknown = structuredClone(c.totalRequestStatistics.$unknown);
  }
  return copy;
}

/** Generates `polls` consecutive answers of a fresh world. */
export function generateConnectionPolls(opts: ConnectionWorldOptions & { readonly polls: number }): GeneratedPoll[] {
  const world = new ConnectionWorld(opts);
  const out: GeneratedPoll[] = [];
  for (let i = 0; i < opts.polls; i++) out.push(world.next());
  return out;
}
