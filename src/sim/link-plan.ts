/** Scenario events of the shadow links, resolved per link and topic into windows (µs). */
import { ScenarioError, type ScenarioEvent } from './scenario/types.ts';
import { us, windowOf, type Plan, type Window } from './plan.ts';
import type { Mod } from './flow.ts';
import { TASKS, type LinkSpec } from './links.ts';

/** A failover or promotion of one topic. */
export interface Terminal {
  readonly kind: 'failover' | 'promotion';
  /** µs: the transition starts */
  readonly at: number;
  /** µs: the final state is reached */
  readonly done: number;
}

/** What happens to one shadow topic. */
export interface TopicPlan {
  /** windows without replication (merged, sorted), µs */
  readonly stopped: Window[];
  /** windows in which the source information is not refreshed, µs */
  readonly frozen: Window[];
  /** source traffic multipliers, seconds */
  readonly spikes: Mod[];
  readonly faulted: Window[];
  terminal?: Terminal;
}

/** A task fault. */
export interface TaskFault extends Window {
  readonly task: string;
  readonly broker: number | undefined;
  readonly reason: string;
}

/** What happens to one shadow link. */
export interface LinkPlan {
  readonly paused: Window[];
  readonly unavailable: (Window & { reason: string })[];
  readonly taskFaults: TaskFault[];
  readonly topics: Map<string, TopicPlan>;
}

const LINK_KINDS = new Set<ScenarioEvent['kind']>([
  'link_paused',
  'link_unavailable',
  'task_faulted',
  'topic_faulted',
  'failover',
  'promotion',
  'source_traffic_spike',
]);

/** Merges windows into a sorted disjoint list. */
export function mergeWindows(ws: readonly Window[]): Window[] {
  const sorted = [...ws].sort((a, b) => a.from - b.from);
  const out: Window[] = [];
  for (const w of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && w.from <= last.to) out[out.length - 1] = { from: last.from, to: Math.max(last.to, w.to) };
    else out.push(w);
  }
  return out;
}

/** Resolves the link events of a plan against the world's links. */
export function resolveLinkPlans(plan: Plan, links: readonly LinkSpec[]): Map<string, LinkPlan> {
  const out = new Map<string, LinkPlan>();
  for (const l of links) {
    const topics = new Map<string, TopicPlan>();
    for (const t of l.topics) topics.set(t.name, { stopped: [], frozen: [], spikes: [], faulted: [] });
    out.set(l.name, { paused: [], unavailable: [], taskFaults: [], topics });
  }
  const fail = (e: ScenarioEvent, field: string, reason: string): never => {
    throw new ScenarioError(plan.source, e.line, 0, `events[${e.index}].${field}`, reason);
  };
  for (const e of plan.events) {
    if (!LINK_KINDS.has(e.kind)) continue;
    const found = e.link !== undefined ? links.find((l) => l.name === e.link) : links[0];
    if (found === undefined) {
      if (e.link === undefined) fail(e, 'link', 'the world has no shadow links');
      return fail(
        e,
        'link',
        `unknown shadow link ${JSON.stringify(e.link)} (links: ${links.map((l) => l.name).join(', ')})`,
      );
    }
    const link: LinkSpec = found;
    const lp = out.get(link.name) as LinkPlan;
    if (e.topic !== undefined && !lp.topics.has(e.topic)) {
      fail(
        e,
        'topic',
        `link ${link.name} has no shadow topic ${JSON.stringify(e.topic)} (topics: ${[...lp.topics.keys()].join(', ')})`,
      );
    }
    const w = windowOf(e);
    const each = (fn: (tp: TopicPlan) => void, topic = e.topic): void => {
      for (const [name, tp] of lp.topics) if (topic === undefined || topic === name) fn(tp);
    };
    switch (e.kind) {
      case 'link_paused':
        lp.paused.push(w);
        each((tp) => tp.stopped.push(w), undefined);
        break;
      case 'link_unavailable':
        lp.unavailable.push({
          ...w,
          reason:
            e.reason ??
            `source cluster unreachable: connect to ${link.configurations.clientOptions.bootstrapServers[0]} timed out`,
        });
        each((tp) => {
          tp.stopped.push(w);
          tp.frozen.push(w);
        }, undefined);
        break;
      case 'task_faulted': {
        const task = e.task ?? TASKS.topicSync;
        if (!(Object.values(TASKS) as string[]).includes(task))
          fail(e, 'task', `unknown task ${JSON.stringify(task)} (tasks: ${Object.values(TASKS).join(', ')})`);
        if (e.broker !== undefined && !plan.config.brokers.includes(e.broker))
          fail(e, 'broker', `no broker with node id ${e.broker}`);
        lp.taskFaults.push({
          ...w,
          task,
          broker: e.broker,
          reason: e.reason ?? 'unexpected error: failed to apply source metadata',
        });
        break;
      }
      case 'topic_faulted': {
        const topic = e.topic ?? ([...lp.topics.keys()][0] as string);
        each((tp) => {
          tp.stopped.push(w);
          tp.faulted.push(w);
        }, topic);
        break;
      }
      case 'failover':
      case 'promotion': {
        const at = us(e.at);
        const done = at + us(e.transition ?? 20_000_000_000n);
        each((tp) => {
          if (tp.terminal !== undefined) fail(e, 'at', 'the topic already failed over or was promoted earlier');
          tp.terminal = { kind: e.kind as 'failover' | 'promotion', at, done };
          tp.stopped.push({ from: at, to: Infinity });
          tp.frozen.push({ from: at, to: Infinity });
        });
        break;
      }
      case 'source_traffic_spike':
        each((tp) => tp.spikes.push({ from: w.from / 1e6, to: w.to / 1e6, factor: e.factor ?? 8 }));
        break;
      default:
        break;
    }
  }
  for (const lp of out.values()) {
    for (const tp of lp.topics.values()) {
      tp.stopped.splice(0, tp.stopped.length, ...mergeWindows(tp.stopped));
      tp.frozen.splice(0, tp.frozen.length, ...mergeWindows(tp.frozen));
    }
  }
  return out;
}
