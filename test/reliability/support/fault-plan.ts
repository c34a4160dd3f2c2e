/**
 * The cluster faults of the reliability suite, as data: when each happens (simulated seconds
 * from the world start), which operations it hits, whether the simulator or the fault proxy
 * makes it, what a poll in its window must look like, and what the timeline must show.
 * Faults are spaced so that at least one healthy round separates them (recovery is visible).
 */
import type { OperationName } from '../../../src/api/schema/operations.ts';
import type { ReconstructedPoll } from '../../../src/db/index.ts';
import type { ProxyRule } from './fault-proxy.ts';
import { missingFields, shiftTimestamps, timestampsAt, unknownFields, wrongTypes } from './mutations.ts';

/** One fault of the plan. */
export interface FaultCase {
  readonly name: string;
  readonly from: number;
  readonly until: number;
  /** operations hit; undefined = all six */
  readonly ops?: readonly OperationName[];
  /** `fail`: polls in the window fail (with evidence); `ok`: they succeed and are stored losslessly; `mixed`: either */
  readonly expect: 'fail' | 'ok' | 'mixed';
  /** the evidence a poll in the window must carry; returns what is wrong, or undefined */
  readonly evidence?: (r: ReconstructedPoll) => string | undefined;
  /** timeline event kinds that must cover the window, on an affected operation (or on `entity`) */
  readonly timeline?: { readonly kinds: readonly string[]; readonly entity?: string };
  /** the scenario event (simulator faults) */
  readonly sim?: string;
  /** the proxy rule (other faults) */
  readonly proxy?: ProxyRule['mutate'];
}

const failure =
  (want: { code: string; kind?: string; status?: number; message?: RegExp; raw?: boolean; path?: boolean }) =>
  (r: ReconstructedPoll): string | undefined => {
    const f = r.failure;
    if (f === undefined) return 'succeeded';
    if (f.code !== want.code) return `code ${f.code}, expected ${want.code}`;
    if (want.kind !== undefined && f.kind !== want.kind) return `kind ${f.kind}, expected ${want.kind}`;
    if (want.status !== undefined && (f.httpStatus ?? 0) !== want.status)
      return `HTTP ${f.httpStatus ?? 0}, expected ${want.status}`;
    if (want.message !== undefined && !want.message.test(f.message))
      return `message ${JSON.stringify(f.message)} !~ ${want.message}`;
    if (want.raw === true && (r.raw === undefined || r.raw.length === 0)) return 'raw body not kept';
    if (want.path === true && (f.path === undefined || f.path === '')) return 'no JSON path of the bad value';
    return undefined;
  };

/** The answer carries the unknown fields (kept for reconstruction). */
const keepsUnknown = (r: ReconstructedPoll): string | undefined =>
  r.answer !== undefined && (r.answer as { $unknown?: object }).$unknown !== undefined
    ? undefined
    : 'unknown fields lost';

/** A fault of the plan before it is given a window. */
export interface Draft extends Omit<FaultCase, 'from' | 'until'> {
  /** seconds the fault lasts (default 20: one round) */
  readonly lasts?: number;
}

/** The faults, without their windows (the hostile server of test/fixtures/hostile-server plays each as a named mode). */
export const DRAFTS: readonly Draft[] = [
  {
    name: 'admin API down for 3 minutes (broker 0 down: connections dropped)',
    lasts: 180,
    expect: 'fail',
    sim: 'broker_down, broker: 0',
    evidence: failure({ code: 'unavailable', kind: 'transport', status: 0 }),
    timeline: { kinds: ['api.unavailable'] },
  },
  {
    name: '503 burst (half the calls)',
    expect: 'mixed',
    lasts: 20,
    sim: 'api_fault, fault: unavailable, ratio: 0.5',
    evidence: (r) =>
      r.failure === undefined
        ? undefined
        : failure({ code: 'unavailable', kind: 'connect', status: 503, raw: true })(r),
    timeline: { kinds: ['api.unavailable'] },
  },
  {
    name: '429 storm',
    lasts: 60,
    expect: 'fail',
    sim: 'api_fault, fault: too_many_requests',
    evidence: failure({ code: 'resource_exhausted', kind: 'connect', status: 429, raw: true }),
    timeline: { kinds: ['api.refused'] },
  },
  {
    name: 'answers slower than the timeout',
    ops: ['GetUpgradeStatus', 'GetIcebergStatus'],
    expect: 'fail',
    sim: 'api_fault, fault: slow, delay: 1s',
    evidence: failure({ code: 'deadline_exceeded' }),
    timeline: { kinds: ['api.timeout'] },
  },
  {
    name: 'malformed JSON',
    expect: 'fail',
    sim: 'api_fault, fault: malformed',
    evidence: failure({ code: 'internal', kind: 'invalid_answer', message: /not valid JSON/, raw: true }),
    timeline: { kinds: ['api.error'] },
  },
  {
    name: 'truncated JSON',
    expect: 'fail',
    sim: 'api_fault, fault: truncated',
    evidence: failure({ code: 'internal', kind: 'invalid_answer', message: /not valid JSON/, raw: true }),
    timeline: { kinds: ['api.error'] },
  },
  {
    name: 'HTML error page (502 from a proxy)',
    expect: 'fail',
    sim: 'api_fault, fault: html',
    evidence: failure({ code: 'unavailable', kind: 'protocol', status: 502, message: /text\/html/, raw: true }),
    timeline: { kinds: ['api.unavailable'] },
  },
  {
    name: 'empty body',
    expect: 'fail',
    sim: 'api_fault, fault: empty',
    evidence: failure({ code: 'internal', kind: 'invalid_answer', message: /empty/ }),
    timeline: { kinds: ['api.error'] },
  },
  {
    name: 'oversize answer (2 MiB, limit 1 MiB)',
    ops: ['GetUpgradeStatus'],
    expect: 'fail',
    sim: 'api_fault, fault: oversize, size: 2097152',
    evidence: failure({ code: 'resource_exhausted', kind: 'protocol', message: /exceeds the limit/ }),
    timeline: { kinds: ['api.refused'] },
  },
  {
    name: 'large answer within the limit (64 KiB of padding)',
    ops: ['ListShadowTopics'],
    expect: 'ok',
    sim: 'api_fault, fault: oversize, size: 65536',
    evidence: keepsUnknown,
  },
  {
    name: 'duplicate uids in one answer',
    ops: ['ListKafkaConnections'],
    expect: 'ok',
    sim: 'api_fault, fault: duplicate_uids',
    timeline: { kinds: ['api.duplicate-uids'] },
  },
  {
    name: 'field of the wrong type (true for an int64)',
    ops: ['GetUpgradeStatus', 'ListShadowTopics'],
    expect: 'fail',
    sim: 'api_fault, fault: wrong_type',
    evidence: failure({ code: 'internal', kind: 'invalid_answer', path: true, raw: true }),
    timeline: { kinds: ['api.error'] },
  },
  {
    name: 'field of the wrong type ("two" for an int32)',
    ops: ['ListKafkaConnections'],
    expect: 'fail',
    proxy: wrongTypes,
    evidence: failure({ code: 'internal', kind: 'invalid_answer', path: true, raw: true, message: /nodeId/ }),
    timeline: { kinds: ['api.error'] },
  },
  { name: 'unknown fields everywhere', expect: 'ok', proxy: unknownFields, evidence: keepsUnknown },
  { name: 'missing fields (every second field left out)', expect: 'ok', proxy: missingFields },
  { name: 'timestamps far in the past (0001-01-01)', expect: 'ok', proxy: timestampsAt('0001-01-01T00:00:00Z') },
  {
    name: 'timestamps far in the future (9999-12-31)',
    expect: 'ok',
    proxy: timestampsAt('9999-12-31T23:59:59.999999999Z'),
  },
  {
    name: 'timestamps out of range (year 10000)',
    expect: 'fail',
    proxy: timestampsAt('10000-01-01T00:00:00Z'),
    ops: ['ListKafkaConnections', 'GetShadowLink'],
    evidence: failure({ code: 'internal', kind: 'invalid_answer', path: true, raw: true }),
    timeline: { kinds: ['api.error'] },
  },
  {
    name: 'cluster clock jumps 6 hours ahead for a minute, then back',
    lasts: 60,
    expect: 'ok',
    proxy: shiftTimestamps(6 * 3600),
  },
  {
    name: 'one broker down for 3 minutes (broker 2)',
    lasts: 180,
    ops: ['ListKafkaConnections'],
    expect: 'ok',
    sim: 'broker_down, broker: 2',
    timeline: { kinds: ['connections.broker-empty', 'upgrade.member-down'], entity: 'broker/2' },
  },
];

const TICK = 30;

/** The plan with absolute windows: the first fault at 1m, each next one at least 60 s after the previous ended. */
export function faultPlan(): { faults: FaultCase[]; seconds: number } {
  const faults: FaultCase[] = [];
  let at = 60;
  for (const d of DRAFTS) {
    const until = at + (d.lasts ?? 20);
    faults.push({ ...d, from: at, until });
    at = Math.ceil((until + 60) / TICK) * TICK;
  }
  return { faults, seconds: at + TICK };
}

/** The simulator scenario (YAML) for the plan's simulator faults. */
export function planScenario(faults: readonly FaultCase[]): string {
  const events = faults
    .filter((f) => f.sim !== undefined)
    .map((f) => {
      const ops = f.ops !== undefined && f.sim!.startsWith('api_fault') ? `operations: [${f.ops.join(', ')}], ` : '';
      return `  - { at: ${f.from}s, kind: ${f.sim}, ${ops}until: ${f.until}s }`;
    });
  return `name: reliability-faults\ndescription: every cluster fault of docs/reliability.md\nevents:\n${events.join('\n')}\n`;
}

/** The proxy rules for the plan's other faults. */
export function planRules(faults: readonly FaultCase[]): ProxyRule[] {
  return faults
    .filter((f) => f.proxy !== undefined)
    .map((f) => ({
      name: f.name,
      from: f.from,
      until: f.until,
      ...(f.ops === undefined ? {} : { ops: f.ops }),
      mutate: f.proxy!,
    }));
}
