/**
 * `/readyz`: the collector is ready when every configured target of every scheduled operation
 * of every cluster had a successful poll within twice its schedule interval. Before its first
 * success a target is waiting, not late, until twice its interval has passed since the start
 * (its first round may not even be due yet); the collector is not ready while one waits. The interval comes
 * from the cron expression (the gap between its next two fire times); the clock is injected and
 * must be the one the poll times use (the simulated cluster's in accelerated time).
 */
import { createTask } from 'node-cron';
import type { OperationName } from '../../api/schema/operations.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { PollRecord } from '../../db/poll-record.ts';
import type { CollectorConfig } from '../config.ts';
import { targetsOf, type RoundResult } from '../poller.ts';
import { OPERATION_ORDER } from '../schedule.ts';

/** One thing that must keep succeeding: a target of an operation of a cluster, on a schedule. */
export interface ReadinessTarget {
  readonly cluster: string;
  readonly operation: OperationName;
  /** '' | link | `link/topic` */
  readonly target: string;
  readonly expression: string;
}

/** The verdict of /readyz. */
export interface ReadinessReport {
  readonly ready: boolean;
  /** plain text, one line per late target (or a one-line ok) */
  readonly text: string;
}

interface TargetState {
  readonly spec: ReadinessTarget;
  readonly intervalMs: number;
  lastOkMs?: number;
  lastError?: string;
  standby: boolean;
}

/** The targets the collector polls, from its configuration (enabled schedules with something to ask). */
export function readinessTargets(config: CollectorConfig): ReadinessTarget[] {
  const out: ReadinessTarget[] = [];
  for (const c of config.clusters) {
    for (const operation of OPERATION_ORDER) {
      const expression = c.schedules[operation];
      if (expression === null) continue;
      for (const t of targetsOf(operation, c)) out.push({ cluster: c.name, operation, target: t.target, expression });
    }
  }
  return out;
}

/** The time between the next two fire times of a cron expression, ms (node-cron's own parser). */
export function cronIntervalMs(expression: string): number {
  const task = createTask(expression, () => {});
  try {
    const [a, b] = task.getNextRuns(2);
    return a === undefined || b === undefined ? 0 : b.getTime() - a.getTime();
  } finally {
    void task.destroy();
  }
}

const MAX_MESSAGE = 200;

function oneLine(text: string): string {
  const flat = sanitizeCell(text.replace(/\s+/g, ' ').trim());
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10}s`;
}

/** Tracks the latest success and failure of every target; answers /readyz. */
export class Readiness {
  readonly #targets = new Map<string, TargetState>();
  readonly #now: () => number;
  /** when tracking began (the collector's start), on the same clock */
  readonly #startMs: number;

  /** `now`: ms since the epoch, on the clock of the poll times. */
  constructor(
    targets: readonly ReadinessTarget[],
    now: () => number,
    intervalOf: (expression: string) => number = cronIntervalMs,
  ) {
    this.#now = now;
    this.#startMs = now();
    const intervals = new Map<string, number>();
    for (const spec of targets) {
      const intervalMs = intervals.get(spec.expression) ?? intervalOf(spec.expression);
      intervals.set(spec.expression, intervalMs);
      this.#targets.set(key(spec.cluster, spec.operation, spec.target), { spec, intervalMs, standby: false });
    }
  }

  /** Takes one stored poll attempt (after secrets were removed). */
  record(r: PollRecord): void {
    const t = this.#targets.get(key(r.cluster, r.operation, r.target));
    if (t === undefined) return;
    t.standby = false;
    if (r.outcome.ok) {
      t.lastOkMs = Number(r.endedAt / 1_000_000n);
      return;
    }
    const o = r.outcome;
    const status = o.httpStatus === undefined ? o.kind : `${o.kind}, HTTP ${o.httpStatus}`;
    t.lastError = `${o.code} (${status}): ${oneLine(o.message)}`;
  }

  /** Takes one finished round (a standby round marks its targets as waiting on another collector). */
  round(r: RoundResult): void {
    if (r.standby !== true) return;
    for (const t of this.#targets.values())
      if (t.spec.cluster === r.cluster && t.spec.operation === r.operation) t.standby = true;
  }

  /**
   * Ready when every target succeeded within twice its interval; otherwise the late ones and why,
   * and those still waiting for a first success that are not late yet.
   */
  check(): ReadinessReport {
    const now = this.#now();
    const late: string[] = [];
    const waiting: string[] = [];
    for (const t of this.#targets.values()) {
      const allowed = 2 * t.intervalMs;
      const age = t.lastOkMs === undefined ? undefined : now - t.lastOkMs;
      if (age !== undefined && age <= allowed) continue;
      const what = `${t.spec.cluster} ${t.spec.operation}${t.spec.target === '' ? '' : ` ${oneLine(t.spec.target)}`}`;
      const why = t.standby
        ? "; standby: another collector holds the cluster's lease"
        : t.lastError === undefined
          ? ''
          : `; last error ${t.lastError}`;
      const running = now - this.#startMs;
      if (age === undefined && running <= allowed) {
        waiting.push(
          `${what}: waiting for its first successful poll (running ${seconds(running)}; late after ${seconds(allowed)}, schedule ${t.spec.expression})${why}`,
        );
        continue;
      }
      const since = age === undefined ? 'no successful poll yet' : `last successful poll ${seconds(age)} ago`;
      late.push(`${what}: ${since} (allowed ${seconds(allowed)}, schedule ${t.spec.expression})${why}`);
    }
    const n = this.#targets.size;
    if (late.length === 0 && waiting.length === 0)
      return { ready: true, text: `ok: ${n} scheduled targets recording\n` };
    const head =
      late.length === 0
        ? `not ready yet: ${waiting.length} of ${n} scheduled targets waiting for their first poll, none late`
        : `not ready: ${late.length} of ${n} scheduled targets late${waiting.length === 0 ? '' : `, ${waiting.length} waiting for their first poll`}`;
    return { ready: false, text: `${[head, ...late, ...waiting].join('\n')}\n` };
  }
}

function key(cluster: string, op: string, target: string): string {
  return `${cluster}\u0000${op}\u0000${target}`;
}
