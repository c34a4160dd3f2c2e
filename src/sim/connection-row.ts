/**
 * Turns a simulated connection into the decoded KafkaConnection the API returns at time t:
 * identity, authentication, lazily computed counters (total and last minute), idle time and a
 * sample of in-flight requests.
 */
import type { KafkaConnection, RequestStatistics } from '../api/schema/connection.ts';
import { APPS, apiVersionsFor, listenerTls, mainApiKey, type AppProfile } from './catalog.ts';
import { CONN_KIND, type Conn } from './connections.ts';
import { factorAt, flowIntegral, makeWave, normalizeMods, waveAt, type Mod, type Wave } from './flow.ts';
import { hash, unit, uuidFrom } from './rng.ts';
import { absNs, durNs, sec } from './time.ts';
import type { AuthFailPlan, Plan } from './plan.ts';

const MINUTE = sec(60);
const U32_MAX = 4294967295;
const U64_MAX = 2n ** 64n - 1n;
/** With extreme values, total counters start this far up: 2^50 below 2^64, room for years of traffic. */
const EXTREME_BASE = U64_MAX - 2n ** 50n;
const ZERO_STATS: RequestStatistics = { fetchBytes: 0n, produceBatchCount: 0n, produceBytes: 0n, requestCount: 0n };
const NO_INFLIGHT = { hasMoreRequests: false, sampledInFlightRequests: [] };

/** What never changes for one connection. */
interface Fixed {
  readonly apiVersions: Record<string, number>;
  readonly authenticationInfo: KafkaConnection['authenticationInfo'];
  readonly clientId: string;
  readonly groupId: string;
  readonly groupInstanceId: string;
  readonly groupMemberId: string;
  readonly openTime: bigint;
  readonly source: KafkaConnection['source'];
  readonly tlsInfo: KafkaConnection['tlsInfo'];
  readonly transactionalId: string;
  readonly uid: string;
  /** rate factor of this connection */
  readonly f: number;
  /** average produced batch size */
  readonly batch: number;
  /** flow integral at the open time */
  readonly i0: number;
}

const AUTH_FAILURE_VERSIONS = { '17': 1, '18': 3, '36': 2 };
const AUTH_FAILURE: KafkaConnection['authenticationInfo'] = {
  mechanism: 'AUTHENTICATION_MECHANISM_SASL_SCRAM',
  state: 'AUTHENTICATION_STATE_FAILURE',
  userPrincipal: '',
};
const TLS_ON = { enabled: true };
const TLS_OFF = { enabled: false };
const auths = new Map<AppProfile, KafkaConnection['authenticationInfo']>();

/** The (shared) authentication info of an application's connections. */
function authOf(a: AppProfile): KafkaConnection['authenticationInfo'] {
  let v = auths.get(a);
  if (v === undefined) {
    v = {
      mechanism: `AUTHENTICATION_MECHANISM_${a.mechanism}`,
      state: 'AUTHENTICATION_STATE_SUCCESS',
      userPrincipal: a.principal,
    };
    auths.set(a, v);
  }
  return v;
}

/** Per-application rate windows (idle consumer groups), normalized once. */
export function appMods(plan: Plan): Map<number, Mod[]> {
  const out = new Map<number, Mod[]>();
  for (const [app, ws] of plan.idleApps)
    out.set(app, normalizeMods(ws.map((w) => ({ from: w.from / 1e6, to: w.to / 1e6, factor: 0 }))));
  return out;
}

/** Builds rows; per-connection values that never change (uid, wave) are cached on the connection. */
export class RowBuilder {
  readonly #mods: Map<number, Mod[]>;
  readonly #authByIndex: Map<number, AuthFailPlan>;

  readonly #plan: Plan;

  constructor(plan: Plan) {
    this.#plan = plan;
    this.#mods = appMods(plan);
    this.#authByIndex = new Map(plan.authFails.map((f) => [f.index, f]));
  }

  #uid(c: Conn): string {
    c.uid ??= uuidFrom(this.#plan.config.seed, c.slot + c.kind * 0x100000, c.gen, 0xc0);
    return c.uid;
  }

  #wave(c: Conn): Wave {
    c.wave ??= makeWave(c.h, 0.4);
    return c.wave;
  }

  /** The decoded connection at t (µs since the world start). */
  build(c: Conn, t: number): KafkaConnection {
    const start = this.#plan.config.start;
    const closed = c.close <= t;
    const end = closed ? c.close : t;
    if (c.kind === CONN_KIND.authFailure) return this.#authFailure(c, t, closed);
    const a = APPS[c.app] as AppProfile;
    const fx = this.#fixed(c, a);
    const mods = c.kind === CONN_KIND.regular ? this.#mods.get(c.app) : undefined;
    const w = this.#wave(c);
    const x0 = c.open / 1e6;
    const x1 = end / 1e6;
    const xm = Math.max(x0, (t - MINUTE) / 1e6);
    const i1 = flowIntegral(w, x1, mods);
    const im = xm >= x1 ? i1 : flowIntegral(w, xm, mods);
    const f = fx.f;
    const stats = (from: number, base: number): RequestStatistics => {
      const span = Math.max(0, i1 - from);
      return {
        fetchBytes: BigInt(Math.floor(a.fetchRate * f * span)),
        produceBatchCount: BigInt(Math.floor((a.produceRate * f * span) / fx.batch)),
        produceBytes: BigInt(Math.floor(a.produceRate * f * span)),
        requestCount: BigInt(base + Math.floor(a.reqRate * f * span)),
      };
    };
    const total = this.#plan.extremeValues ? extremeStats(stats(fx.i0, 4)) : stats(fx.i0, 4);
    const recent = closed && t - c.close >= MINUTE ? ZERO_STATS : stats(im, xm <= x0 ? 4 : 0);
    const aborting = !closed && c.aborted && c.close - t < sec(1);
    const activity = closed ? undefined : this.#activity(c, a, t, w, mods, f);
    return {
      apiVersions: fx.apiVersions,
      authenticationInfo: fx.authenticationInfo,
      clientId: fx.clientId,
      clientSoftwareName: a.software,
      clientSoftwareVersion: a.version,
      closeTime: closed ? absNs(start, c.close) : 0n,
      groupId: fx.groupId,
      groupInstanceId: fx.groupInstanceId,
      groupMemberId: fx.groupMemberId,
      idleDuration: activity?.idle ?? 0n,
      inFlightRequests: activity?.inflight ?? NO_INFLIGHT,
      listenerName: a.listener,
      nodeId: c.node,
      openTime: fx.openTime,
      recentRequestStatistics: recent,
      shardId: this.#shard(c),
      source: fx.source,
      state: closed
        ? 'KAFKA_CONNECTION_STATE_CLOSED'
        : aborting
          ? 'KAFKA_CONNECTION_STATE_ABORTING'
          : 'KAFKA_CONNECTION_STATE_OPEN',
      tlsInfo: fx.tlsInfo,
      totalRequestStatistics: total,
      transactionalId: fx.transactionalId,
      uid: fx.uid,
    };
  }

  /** The parts of a connection that never change, computed once and kept on the connection. */
  #fixed(c: Conn, a: AppProfile): Fixed {
    if (c.fixed !== undefined) return c.fixed as Fixed;
    // a client process keeps its host (and so its client id and address) across reconnects
    const host = (c.kind === CONN_KIND.regular ? hash(this.#plan.config.seed, c.slot, 0, 79) : hash(c.h, 11)) % a.hosts;
    const clientId = c.kind === CONN_KIND.storm ? `${a.name}-storm-${c.gen % 97}` : `${a.name}-${host}`;
    const consumes = a.role !== 'producer' && a.role !== 'admin';
    const instance = a.staticMembers ? `${a.name}-${host}` : '';
    const mods = c.kind === CONN_KIND.regular ? this.#mods.get(c.app) : undefined;
    const fx: Fixed = {
      apiVersions: apiVersionsFor(a),
      authenticationInfo: authOf(a),
      clientId,
      groupId: consumes ? a.group : '',
      groupInstanceId: consumes ? instance : '',
      groupMemberId: consumes ? `${instance || clientId}-${uuidFrom(c.h, c.gen, 0, 0x3e)}` : '',
      openTime: absNs(this.#plan.config.start, c.open),
      source: { ipAddress: `${a.subnet}.${10 + host}`, port: this.#port(c) },
      tlsInfo: listenerTls(a.listener) ? TLS_ON : TLS_OFF,
      transactionalId: a.role === 'txn' ? `${a.name}-tx-${host}` : '',
      uid: this.#uid(c),
      f: 0.5 + unit(c.h, 12),
      batch: 8192 + (hash(c.h, 13) % 57344),
      i0: flowIntegral(this.#wave(c), c.open / 1e6, mods),
    };
    c.fixed = fx;
    return fx;
  }

  /** The shard id a row reports (near 2^32 with extreme values; the world's shard otherwise). */
  #shard(c: Conn): number {
    return this.#plan.extremeValues ? U32_MAX - c.shard : c.shard;
  }

  /** The source port a row reports (near 2^32 with extreme values). */
  #port(c: Conn): number {
    return this.#plan.extremeValues ? U32_MAX - (c.port - 32768) : c.port;
  }

  #activity(
    c: Conn,
    a: AppProfile,
    t: number,
    w: Wave,
    mods: Mod[] | undefined,
    f: number,
  ): { idle: bigint; inflight: KafkaConnection['inFlightRequests'] } {
    const x = t / 1e6;
    const factor = factorAt(mods, x);
    if (factor === 0) {
      const m = mods?.find((m) => x >= m.from && x < m.to);
      const since = Math.max(c.open, Math.round((m?.from ?? x) * 1e6));
      return { idle: durNs(t - since), inflight: NO_INFLIGHT };
    }
    const rho = a.reqRate * f * waveAt(w, x) * factor;
    const hb = hash(c.h, Math.floor(t / 1000));
    const u = unit(hb, 1);
    if (a.role === 'admin') {
      const period = Math.round(1e6 / Math.max(rho, 1e-3)) * 60;
      return { idle: durNs((t - c.open) % period), inflight: NO_INFLIGHT };
    }
    const key = mainApiKey(a.role);
    if (a.role === 'consumer' || a.role === 'streams') {
      const wait = 500_000;
      const items = [{ apiKey: 1, inFlightDuration: durNs((t + (c.h % wait)) % wait) }];
      if (u < 0.08) items.push({ apiKey: 12, inFlightDuration: durNs(Math.round(3000 * unit(hb, 2))) });
      return { idle: 0n, inflight: { hasMoreRequests: false, sampledInFlightRequests: items } };
    }
    const service = 2000 + (hash(c.h, 14) % 58000);
    const mean = (rho * service) / 1e6;
    let n = mean >= 1 ? Math.max(1, Math.round(mean * (0.5 + u))) : u < mean ? 1 : 0;
    if (n === 0) return { idle: durNs(Math.round((unit(hb, 3) * 1e6) / Math.max(rho, 0.01))), inflight: NO_INFLIGHT };
    const more = n > 5;
    if (more) n = 5;
    const items = [];
    for (let i = 0; i < n; i++)
      items.push({ apiKey: key, inFlightDuration: durNs(Math.round(service * unit(hb, 10 + i))) });
    items.sort((p, q) =>
      q.inFlightDuration > p.inFlightDuration ? 1 : q.inFlightDuration < p.inFlightDuration ? -1 : 0,
    );
    return { idle: 0n, inflight: { hasMoreRequests: more, sampledInFlightRequests: items } };
  }

  #authFailure(c: Conn, t: number, closed: boolean): KafkaConnection {
    const f = this.#authByIndex.get(c.slot);
    const start = this.#plan.config.start;
    const external = (f?.listener ?? 'external') !== 'internal';
    return {
      apiVersions: AUTH_FAILURE_VERSIONS,
      authenticationInfo: AUTH_FAILURE,
      clientId: `${(f?.principal ?? 'User:unknown').replace(/^User:/, '')}-client`,
      clientSoftwareName: 'apache-kafka-java',
      clientSoftwareVersion: '2.8.1',
      closeTime: closed ? absNs(start, c.close) : 0n,
      groupId: '',
      groupInstanceId: '',
      groupMemberId: '',
      idleDuration: 0n,
      inFlightRequests: NO_INFLIGHT,
      listenerName: f?.listener ?? 'external',
      nodeId: c.node,
      openTime: absNs(start, c.open),
      recentRequestStatistics: { ...ZERO_STATS, requestCount: t - c.open < MINUTE ? 3n : 0n },
      shardId: this.#shard(c),
      source: { ipAddress: `198.51.100.${10 + (hash(c.h, 11) % 40)}`, port: this.#port(c) },
      state: closed ? 'KAFKA_CONNECTION_STATE_CLOSED' : 'KAFKA_CONNECTION_STATE_ABORTING',
      tlsInfo: { enabled: external },
      totalRequestStatistics: this.#plan.extremeValues
        ? extremeStats({ ...ZERO_STATS, requestCount: 3n })
        : { ...ZERO_STATS, requestCount: 3n },
      transactionalId: '',
      uid: this.#uid(c),
    };
  }
}

/** Total counters moved up to just below 2^64 (never past it), for `world.extreme_values`. */
function extremeStats(s: RequestStatistics): RequestStatistics {
  const up = (v: bigint): bigint => (v >= U64_MAX - EXTREME_BASE ? U64_MAX : EXTREME_BASE + v);
  return {
    fetchBytes: up(s.fetchBytes),
    produceBatchCount: up(s.produceBatchCount),
    produceBytes: up(s.produceBytes),
    requestCount: up(s.requestCount),
  };
}
