/**
 * The world's static configuration and the scenario resolved against it: event windows in
 * microseconds since the world start, with entity names checked and defaults filled in.
 */
import { ScenarioError, type Scenario, type ScenarioEvent } from './scenario/types.ts';
import { APPS } from './catalog.ts';

/** A time window in microseconds since the world start; `to` is Infinity when open-ended. */
export interface Window {
  readonly from: number;
  readonly to: number;
}

/** The static shape of a world. */
export interface WorldConfig {
  readonly seed: number;
  /** absolute start, ns since the epoch */
  readonly start: bigint;
  /** node ids of the brokers */
  readonly brokers: readonly number[];
  readonly shardsPerBroker: number;
  /** target number of open regular connections */
  readonly connections: number;
  readonly links: readonly string[];
  readonly autoFinalization: boolean;
}

/** A connection storm, resolved. */
export interface StormPlan {
  readonly index: number;
  readonly app: number;
  readonly from: number;
  readonly to: number;
  readonly rate: number;
  /** mean lifetime, µs */
  readonly lifetime: number;
}

/** A wave of authentication failures, resolved. */
export interface AuthFailPlan {
  readonly index: number;
  readonly principal: string;
  readonly listener: string;
  readonly from: number;
  readonly to: number;
  readonly rate: number;
}

/** The resolved scenario. */
export interface Plan {
  readonly config: WorldConfig;
  readonly events: readonly ScenarioEvent[];
  /** node id → down windows, sorted */
  readonly downs: ReadonlyMap<number, readonly Window[]>;
  /** application index → windows in which it is idle */
  readonly idleApps: ReadonlyMap<number, readonly Window[]>;
  readonly storms: readonly StormPlan[];
  readonly authFails: readonly AuthFailPlan[];
  readonly source: string;
  /** serve the widest values the wire allows (scenario `world.extreme_values`) */
  readonly extremeValues: boolean;
}

/** ns relative to the start → µs. */
export function us(ns: bigint): number {
  return Number(ns / 1000n);
}

/** The window of an event in µs. */
export function windowOf(e: ScenarioEvent): Window {
  return { from: us(e.at), to: e.until !== undefined ? us(e.until) : Infinity };
}

function fail(plan: { source: string }, e: ScenarioEvent, field: string, reason: string): never {
  throw new ScenarioError(plan.source, e.line, 0, `events[${e.index}].${field}`, reason);
}

/** Resolves a scenario against a world configuration; unknown entities are ScenarioErrors. */
export function resolvePlan(config: WorldConfig, scenario: Scenario): Plan {
  const ctx = { source: scenario.source };
  const downs = new Map<number, Window[]>();
  const idleApps = new Map<number, Window[]>();
  const storms: StormPlan[] = [];
  const authFails: AuthFailPlan[] = [];
  const lastBroker = config.brokers[config.brokers.length - 1] ?? 0;
  for (const e of scenario.events) {
    const w = windowOf(e);
    switch (e.kind) {
      case 'broker_down': {
        const node = e.broker ?? lastBroker;
        if (!config.brokers.includes(node))
          fail(ctx, e, 'broker', `no broker with node id ${node} (brokers: ${config.brokers.join(', ')})`);
        const list = downs.get(node) ?? [];
        list.push(w);
        downs.set(node, list);
        break;
      }
      case 'consumer_group_idle': {
        const group = e.group ?? 'analytics-etl';
        const app = APPS.findIndex((a) => a.group === group);
        if (app < 0)
          fail(
            ctx,
            e,
            'group',
            `unknown consumer group ${JSON.stringify(group)} (known: ${APPS.filter((a) => a.group)
              .map((a) => a.group)
              .join(', ')})`,
          );
        const list = idleApps.get(app) ?? [];
        list.push(w);
        idleApps.set(app, list);
        break;
      }
      case 'connection_storm': {
        const name = e.client ?? 'reporting-batch';
        const app = APPS.findIndex((a) => a.name === name);
        if (app < 0)
          fail(
            ctx,
            e,
            'client',
            `unknown client ${JSON.stringify(name)} (known: ${APPS.map((a) => a.name).join(', ')})`,
          );
        storms.push({
          index: e.index,
          app,
          from: w.from,
          to: w.to,
          rate: e.rate ?? 20,
          lifetime: us(e.lifetime ?? 3_000_000_000n) || 1000,
        });
        break;
      }
      case 'auth_failures':
        authFails.push({
          index: e.index,
          principal: e.principal ?? 'User:svc-legacy',
          listener: e.listener ?? 'external',
          from: w.from,
          to: w.to,
          rate: e.rate ?? 10,
        });
        break;
      default:
        break;
    }
  }
  for (const list of downs.values()) {
    list.sort((a, b) => a.from - b.from);
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1] as Window;
      if ((list[i] as Window).from < prev.to) {
        const e = scenario.events.find(
          (x) => x.kind === 'broker_down' && us(x.at) === (list[i] as Window).from,
        ) as ScenarioEvent;
        fail(ctx, e, 'at', 'overlaps an earlier broker_down of the same broker');
      }
    }
  }
  return {
    config,
    events: scenario.events,
    downs,
    idleApps,
    storms,
    authFails,
    source: scenario.source,
    extremeValues: scenario.world.extremeValues ?? false,
  };
}

/** True when the broker is up at t. */
export function isUp(plan: Plan, node: number, t: number): boolean {
  const ws = plan.downs.get(node);
  if (ws === undefined) return true;
  for (const w of ws) if (t >= w.from && t < w.to) return false;
  return true;
}

/** The first time in (a, b) at which the broker goes down, or Infinity. */
export function nextDownIn(plan: Plan, node: number, a: number, b: number): number {
  const ws = plan.downs.get(node);
  if (ws === undefined) return Infinity;
  for (const w of ws) if (w.from > a && w.from < b) return w.from;
  return Infinity;
}

/** True when the broker went down (was restarted) within [a, b]. */
export function restartedIn(plan: Plan, node: number, a: number, b: number): boolean {
  const ws = plan.downs.get(node);
  if (ws === undefined) return false;
  for (const w of ws) if (w.from >= a && w.from <= b) return true;
  return false;
}

/** The brokers up at t (all of them if none is). */
export function upBrokers(plan: Plan, t: number): readonly number[] {
  if (plan.downs.size === 0) return plan.config.brokers;
  const up = plan.config.brokers.filter((n) => isUp(plan, n, t));
  return up.length > 0 ? up : plan.config.brokers;
}

/** The windows of the resolved events of one kind. */
export function eventsOf(plan: Plan, kind: ScenarioEvent['kind']): ScenarioEvent[] {
  return plan.events.filter((e) => e.kind === kind);
}

/** True when t lies in one of the windows. */
export function inAny(ws: readonly Window[] | undefined, t: number): boolean {
  if (ws === undefined) return false;
  for (const w of ws) if (t >= w.from && t < w.to) return true;
  return false;
}
