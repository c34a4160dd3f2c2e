/** The scenario model: timed events that the simulated cluster plays, with their field tables. */
import type { OperationName } from '../../api/schema/operations.ts';

/** API faults the server applies per operation while an `api_fault` event is active. */
export const API_FAULT_KINDS = [
  'unavailable',
  'slow',
  'malformed',
  'truncated',
  'html',
  'empty',
  'oversize',
  'too_many_requests',
  'duplicate_uids',
  'wrong_type',
  'licence_missing',
] as const;
/** One API fault kind. */
export type ApiFaultKind = (typeof API_FAULT_KINDS)[number];

/** Field value kinds of the scenario format. */
export type FieldKind = 'int' | 'number' | 'string' | 'duration' | 'bool' | 'operations' | 'fault';

/** Whether an event takes a window (`duration` or `until`). */
export type WindowRule = 'required' | 'optional' | 'none';

/** The description of one event kind: its fields (snake_case), which are required, its window. */
export interface EventKindSpec {
  readonly doc: string;
  readonly window: WindowRule;
  readonly fields: Readonly<Record<string, { kind: FieldKind; required?: boolean; doc: string }>>;
}

const req = (kind: FieldKind, doc: string) => ({ kind, required: true, doc });
const opt = (kind: FieldKind, doc: string) => ({ kind, doc });

/** Every event kind, with its fields. Entity names default as documented when left out. */
export const EVENT_KINDS = {
  broker_down: {
    doc: 'A broker goes down (its connections close, its link tasks stop, its member is not alive) and comes back at the end of the window.',
    window: 'optional',
    fields: { broker: opt('int', 'node id; default the highest node id') },
  },
  connection_storm: {
    doc: 'One client opens many short-lived connections.',
    window: 'required',
    fields: {
      client: opt('string', 'client application (client id prefix); default reporting-batch'),
      rate: opt('number', 'new connections per second; default 20'),
      lifetime: opt('duration', 'mean connection lifetime; default 3s'),
    },
  },
  auth_failures: {
    doc: 'A wave of connections that fail authentication and are closed by the broker.',
    window: 'required',
    fields: {
      principal: opt('string', 'principal the clients try; default User:svc-legacy'),
      rate: opt('number', 'failed connections per second; default 10'),
      listener: opt('string', 'listener; default external'),
    },
  },
  consumer_group_idle: {
    doc: 'A consumer group stops consuming: its connections stay open but idle.',
    window: 'optional',
    fields: { group: opt('string', 'consumer group; default analytics-etl') },
  },
  link_paused: {
    doc: 'A shadow link is paused, and resumed at the end of the window.',
    window: 'optional',
    fields: { link: opt('string', 'shadow link; default the first link') },
  },
  link_unavailable: {
    doc: 'The source cluster of a link is unreachable: tasks LINK_UNAVAILABLE, replication stops.',
    window: 'optional',
    fields: { link: opt('string', 'shadow link; default the first link'), reason: opt('string', 'task reason') },
  },
  task_faulted: {
    doc: 'A shadow link task faults with a reason.',
    window: 'optional',
    fields: {
      link: opt('string', 'shadow link; default the first link'),
      task: opt('string', 'task name; default source_topic_sync'),
      broker: opt('int', 'only the task on this broker; default every broker'),
      reason: opt('string', 'why it faulted'),
    },
  },
  topic_faulted: {
    doc: 'A shadow topic faults; its replication stops until the window ends.',
    window: 'optional',
    fields: { link: opt('string', 'shadow link'), topic: opt('string', 'shadow topic; default the first topic') },
  },
  failover: {
    doc: 'Shadow topics fail over: FAILING_OVER for `transition`, then FAILED_OVER (local writes continue).',
    window: 'none',
    fields: {
      link: opt('string', 'shadow link'),
      topic: opt('string', 'one topic; default every topic of the link'),
      transition: opt('duration', 'time spent FAILING_OVER; default 20s'),
    },
  },
  promotion: {
    doc: 'Shadow topics are promoted: PROMOTING for `transition`, then PROMOTED.',
    window: 'none',
    fields: {
      link: opt('string', 'shadow link'),
      topic: opt('string', 'one topic; default every topic of the link'),
      transition: opt('duration', 'time spent PROMOTING; default 20s'),
    },
  },
  source_traffic_spike: {
    doc: 'Source topics get `factor` times their traffic; replication is capped, so lag grows, then drains.',
    window: 'required',
    fields: {
      link: opt('string', 'shadow link'),
      topic: opt('string', 'one topic; default every topic of the link'),
      factor: opt('number', 'traffic multiplier, at least 5; default 8'),
    },
  },
  rolling_upgrade: {
    doc: 'Members restart one by one on a new release, then the cluster is ready to finalize, then finalized.',
    window: 'none',
    fields: {
      to_release: opt('string', 'new release version; default v26.1.1'),
      to_logical: opt('int', 'new logical version; default the current one plus one'),
      member_interval: opt('duration', 'time between member restarts; default 60s'),
      restart: opt('duration', 'how long one member is down; default 20s'),
      auto_finalize: opt('bool', 'finalize by itself once ready; default the world setting'),
      finalize_after: opt('duration', 'operator FinalizeUpgrade this long after ready (when not automatic)'),
    },
  },
  iceberg_catalog_unreachable: {
    doc: 'The Iceberg catalog is unreachable: commits stop, translation continues, commit lag grows.',
    window: 'optional',
    fields: {
      error_code: opt('string', 'catalog error code; default io_error'),
      error_message: opt('string', 'diagnostic'),
    },
  },
  iceberg_commit_stall: {
    doc: 'Iceberg commits stall (the catalog is reachable) while translation continues.',
    window: 'optional',
    fields: { topic: opt('string', 'one Iceberg topic; default every topic') },
  },
  api_fault: {
    doc: 'The admin API misbehaves for the listed operations (robustness tests).',
    window: 'optional',
    fields: {
      fault: req('fault', API_FAULT_KINDS.join(', ')),
      operations: opt('operations', 'operation names; default all six'),
      delay: opt('duration', 'slow: extra real-time delay before answering; default 30s'),
      ratio: opt('number', 'share of calls affected, 0..1; default 1'),
      status: opt('int', 'HTTP status for empty/malformed/truncated bodies; default 200'),
      size: opt('int', 'oversize: body bytes at least; default 33554432'),
    },
  },
} as const satisfies Record<string, EventKindSpec>;

/** The name of an event kind. */
export type EventKind = keyof typeof EVENT_KINDS;
/** All event kinds. */
export const EVENT_KIND_NAMES = Object.keys(EVENT_KINDS) as EventKind[];

/** One timed event, times in nanoseconds relative to the world start. */
export interface ScenarioEvent {
  readonly index: number;
  readonly kind: EventKind;
  /** when it starts */
  readonly at: bigint;
  /** when it ends (absent: it lasts until the end of the run, or it is instantaneous) */
  readonly until?: bigint;
  /** until - at, when a window was given */
  readonly duration?: bigint;
  /** 1-based line of the event in its YAML source */
  readonly line: number;
  readonly broker?: number;
  readonly link?: string;
  readonly topic?: string;
  readonly task?: string;
  readonly group?: string;
  readonly client?: string;
  readonly principal?: string;
  readonly listener?: string;
  readonly reason?: string;
  readonly errorCode?: string;
  readonly errorMessage?: string;
  readonly rate?: number;
  readonly factor?: number;
  readonly lifetime?: bigint;
  readonly transition?: bigint;
  readonly toRelease?: string;
  readonly toLogical?: number;
  readonly memberInterval?: bigint;
  readonly restart?: bigint;
  readonly autoFinalize?: boolean;
  readonly finalizeAfter?: bigint;
  readonly fault?: ApiFaultKind;
  readonly operations?: readonly OperationName[];
  readonly delay?: bigint;
  readonly ratio?: number;
  readonly status?: number;
  readonly size?: number;
}

/** World settings a scenario may fix. */
export interface ScenarioWorld {
  readonly connections?: number;
  readonly brokers?: number;
  readonly links?: readonly string[];
  readonly autoFinalization?: boolean;
  /**
   * serve the widest values the wire allows: total request counters just below 2^64, shard ids
   * and ports near 2^32 (both unsigned), to exercise a recorder's integer widths
   */
  readonly extremeValues?: boolean;
}

/** A parsed, validated scenario. */
export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** where it came from: a built-in name or a file path */
  readonly source: string;
  /** suggested run length (the demo records this long), ns */
  readonly duration?: bigint;
  readonly world: ScenarioWorld;
  readonly events: readonly ScenarioEvent[];
}

/** An invalid scenario: the message names the source, line, column and field. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  /** file path or built-in name */
  readonly source: string;
  /** 1-based line, 0 when unknown */
  readonly line: number;
  /** 1-based column, 0 when unknown */
  readonly column: number;
  /** the field path, e.g. `events[2].broker` */
  readonly field: string;
  /** the problem without the location */
  readonly reason: string;

  constructor(source: string, line: number, column: number, field: string, reason: string) {
    const where = line > 0 ? `${source}:${line}:${column}` : source;
    super(`${where}: ${field ? `${field}: ` : ''}${reason}`);
    this.source = source;
    this.line = line;
    this.column = column;
    this.field = field;
    this.reason = reason;
  }
}

/** The empty scenario (nothing abnormal happens). */
export const EMPTY_SCENARIO: Scenario = {
  name: 'none',
  description: 'no events',
  source: 'none',
  world: {},
  events: [],
};
