/**
 * Retention applied by the collector itself, between polls: raw history older than `raw` goes,
 * then (past `maxSize`) the oldest raw history, then rollups older than `rollups`. Raw history is
 * summarised first (the `rollUp` hook), then removed in small transactions whose size adapts so
 * that each stays under a few milliseconds; the runner yields to the event loop between them and
 * waits while a round is in flight, so a scheduled poll waits at most for the slice in progress.
 * Each action is recorded in the store's maintenance log. A failing step rolls back alone: what
 * earlier steps removed stays removed, everything else stays, and the next pass tries again.
 */
import { performance } from 'node:perf_hooks';
import type { RetentionConfig } from './config.ts';
import type { CollectorStats } from './output.ts';

/** What one bounded step removed (the store's answer). */
export interface RetentionStepResult {
  readonly polls: number;
  readonly samples: number;
  readonly bytes: number;
  /** the step hit its bound: more is left older than the cut-off */
  readonly more: boolean;
}

/** An entry of the maintenance log, as retention writes it. */
export interface RetentionLogEntry {
  readonly at: bigint;
  readonly cluster?: string;
  readonly action: 'retention-raw' | 'retention-partitions' | 'retention-size' | 'retention-rollups';
  readonly cutoff?: bigint;
  readonly polls: number;
  readonly samples: number;
  readonly bytes: number;
  readonly durationMs: number;
}

/** The store's side of retention (`RetentionPruner` of src/db/maintain/retention.ts satisfies it). */
export interface RetentionStore {
  clusters(): readonly string[];
  /** bytes of the database's pages in use */
  usedBytes(): number;
  oldestPoll(): bigint | undefined;
  /** one transaction: up to about `maxPolls` polls of `cluster` older than `cutoff` (never an operation's newest) */
  step(cluster: string, cutoff: bigint, maxPolls: number): RetentionStepResult;
  /** one transaction: up to about `maxRows` rows no remaining poll of `cluster` references */
  cleanup(cluster: string, maxRows: number): RetentionStepResult;
  /** one transaction: up to about `maxRows` rollup rows older than `cutoff` */
  pruneRollups(cutoff: bigint, maxRows: number): RetentionStepResult;
  log(entry: RetentionLogEntry): void;
  /**
   * writes what a pass put in the store's log back into it (off the polls' time); never throws. A
   * promise: the work goes on elsewhere (another thread) and the pass waits for it, the event loop free
   */
  checkpoint?(): void | Promise<unknown>;
  /** true when raw history is partitioned by day (PostgreSQL): whole days can then be dropped */
  partitioned?(): boolean;
  /** one transaction: drops the days whose every poll `step` would remove at `cutoff` (their partitions) */
  dropPartitions?(cutoff: bigint): PartitionDropResult;
}

/** What dropping day partitions did (the store's answer). */
export interface PartitionDropResult {
  readonly days: readonly {
    readonly day: number;
    readonly partitions: readonly string[];
    readonly polls: number;
    readonly samples: number;
    readonly bytes: number;
    readonly clusters: readonly string[];
  }[];
  /** polls of kept days removed with the connection batches of the dropped ones */
  readonly batchPolls: number;
}

/** Summarises a cluster's raw history up to `untilNs` before it is pruned (the rollups). */
export type RollUp = (cluster: string, untilNs: bigint) => void | Promise<void>;

/** Everything a runner is built from; clocks and pauses are injected. */
export interface RetentionRunnerOptions {
  readonly retention: RetentionConfig;
  readonly store: RetentionStore;
  /** counters updated: retentionRuns, prunedPolls, prunedBytes, maxPruneDelayMs */
  readonly stats: CollectorStats;
  /** the poll-time clock, ns since the epoch (cut-offs and log times) */
  readonly nowNs: () => bigint;
  /** a monotonic clock in ms timing the slices (default performance.now) */
  readonly clockMs?: () => number;
  /** lets the event loop run between slices (default: setImmediate) */
  readonly pause?: () => Promise<void>;
  /** a promise settling when the rounds in flight have, or undefined when none is */
  readonly roundsInFlight?: () => Promise<unknown> | undefined;
  readonly rollUp?: RollUp;
  /**
   * a pass's checkpoint done by a thread that already holds the store (the rollups'), when that
   * thread runs; undefined: the store's own `checkpoint` does it. Settles, never rejecting
   */
  readonly checkpointElsewhere?: () => Promise<unknown> | undefined;
  /** where problems are reported */
  readonly line?: (text: string) => void;
  readonly stopping?: AbortSignal;
  /** poll-clock time between passes (default 60 s) */
  readonly everyMs?: number;
  /** poll-clock time between cleanups of identities, versions and documents (default 1 h) */
  readonly cleanupEveryMs?: number;
  /** the slice length aimed at, ms (default 10) */
  readonly sliceMs?: number;
  /** polls per step to start with (default 64), and at most (default 256) */
  readonly initialPolls?: number;
  readonly maxPolls?: number;
}

interface Totals {
  polls: number;
  samples: number;
  bytes: number;
  ms: number;
}

const NS_PER_MS = 1_000_000n;
const immediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** True when some retention is configured. */
export function retentionEnabled(r: RetentionConfig): boolean {
  return r.rawMs !== null || r.rollupsMs !== null || r.maxSizeBytes !== null;
}

/** Runs retention passes between polls. */
export class RetentionRunner {
  readonly #o: RetentionRunnerOptions;
  readonly #clock: () => number;
  readonly #pause: () => Promise<void>;
  readonly #sliceMs: number;
  readonly #maxPolls: number;
  #budget: number;
  /** ids a cleanup step looks at (adapts on its own: its cost is not a step's) */
  #cleanupBudget = 512;
  #running: Promise<void> | undefined;
  #lastRun: bigint | undefined;
  #lastCleanup: bigint | undefined;
  #removedSinceCleanup = new Set<string>();
  #warnedFull = false;
  /** the pass in progress wrote (pruned or rolled up): it ends with a checkpoint */
  #wrote = false;

  constructor(opts: RetentionRunnerOptions) {
    this.#o = opts;
    this.#clock = opts.clockMs ?? (() => performance.now());
    this.#pause = opts.pause ?? immediate;
    this.#sliceMs = opts.sliceMs ?? 10;
    this.#maxPolls = opts.maxPolls ?? 256;
    this.#budget = Math.min(this.#maxPolls, opts.initialPolls ?? 64);
  }

  /** Polls per step now (it adapts to the slice length). */
  get budget(): number {
    return this.#budget;
  }

  /** Starts a pass when one is due (every `everyMs` of poll time) and none is running; called after each round. */
  kick(): void {
    if (!retentionEnabled(this.#o.retention) || this.#running !== undefined || this.#o.stopping?.aborted === true)
      return;
    const now = this.#o.nowNs();
    const every = BigInt(this.#o.everyMs ?? 60_000) * NS_PER_MS;
    if (this.#lastRun !== undefined && now - this.#lastRun < every) return;
    this.#lastRun = now;
    const p = this.run(now)
      .catch((err: unknown) => this.#o.line?.(`retention: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        if (this.#running === p) this.#running = undefined;
      });
    this.#running = p;
  }

  /** Settles when no pass is running. */
  idle(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  /** One pass at poll time `now`: raw, size, cleanup, rollups. A failing step ends the pass (reported, not thrown). */
  async run(now: bigint = this.#o.nowNs()): Promise<void> {
    const { retention, store } = this.#o;
    this.#o.stats.retentionRuns++;
    try {
      if (retention.rawMs !== null) {
        const cutoff = now - BigInt(retention.rawMs) * NS_PER_MS;
        const rolledUp = new Set<string>();
        if (store.partitioned?.() === true) await this.#dropDays(cutoff, rolledUp);
        for (const cluster of store.clusters()) {
          if (this.#stopped()) return;
          await this.#pruneCluster(cluster, cutoff, 'retention-raw', now, rolledUp.has(cluster));
        }
      }
      if (retention.maxSizeBytes !== null) await this.#pruneSize(retention.maxSizeBytes, now);
      if (retention.rollupsMs !== null) await this.#pruneRollups(now - BigInt(retention.rollupsMs) * NS_PER_MS, now);
      await this.#checkpoint();
    } catch (err) {
      // a rollUp stopped by the shutdown fails: nothing was pruned, and nothing is wrong
      if (this.#stopped()) return;
      this.#o.line?.(
        'retention: pruning failed and is retried at the next pass (the history kept is intact): ' +
          (err instanceof Error ? err.message : String(err)),
      );
    }
  }

  /**
   * After a pass that wrote, the WAL pages it left are written back; otherwise the next batch
   * seal's checkpoint copies them on a poll's time (measured in the soak: the seal polls are the
   * ingest p99, and they grew from day 1, without pruning, on). A store that checkpoints in another
   * thread returns a promise: only the call is a slice (what a poll can wait for), and the pass
   * ends when the checkpoint has (so that passes never pile up checkpoints).
   */
  async #checkpoint(): Promise<void> {
    const checkpoint = this.#o.store.checkpoint?.bind(this.#o.store);
    const elsewhere = this.#o.checkpointElsewhere;
    if ((checkpoint === undefined && elsewhere === undefined) || !this.#wrote) return;
    this.#wrote = false;
    await this.#turn();
    if (this.#stopped()) return;
    const start = this.#clock();
    const pending = elsewhere?.() ?? checkpoint?.();
    this.#note(this.#clock() - start);
    await Promise.resolve(pending).catch(() => undefined);
  }

  #stopped(): boolean {
    return this.#o.stopping?.aborted === true;
  }

  /** Raw history of one cluster before `cutoff`, summarised first, then logged. */
  async #pruneCluster(
    cluster: string,
    cutoff: bigint,
    action: 'retention-raw' | 'retention-size',
    now: bigint,
    rolledUp = false,
  ): Promise<Totals> {
    const t: Totals = { polls: 0, samples: 0, bytes: 0, ms: 0 };
    const oldest = this.#o.store.oldestPoll();
    if (oldest === undefined || oldest >= cutoff) return t;
    if (!rolledUp) await this.#rollUp(cluster, cutoff);
    try {
      for (;;) {
        await this.#turn();
        if (this.#stopped()) break;
        const r = this.#slice(t, () => this.#o.store.step(cluster, cutoff, this.#budget), 'step');
        if (r.polls > 0) this.#removedSinceCleanup.add(cluster);
        if (!r.more) break;
      }
      const every = BigInt(this.#o.cleanupEveryMs ?? 3_600_000) * NS_PER_MS;
      const due = this.#lastCleanup === undefined || now - this.#lastCleanup >= every;
      if (due && this.#removedSinceCleanup.has(cluster)) {
        for (;;) {
          await this.#turn();
          if (this.#stopped()) return t;
          const r = this.#slice(t, () => this.#o.store.cleanup(cluster, this.#cleanupBudget), 'cleanup');
          if (!r.more) break;
        }
        this.#removedSinceCleanup.delete(cluster);
        if (this.#removedSinceCleanup.size === 0) this.#lastCleanup = now;
      }
    } finally {
      if (t.polls > 0 || t.bytes > 0) this.#log({ cluster, action, cutoff }, t);
    }
    return t;
  }

  async #rollUp(cluster: string, cutoff: bigint): Promise<void> {
    if (this.#o.rollUp === undefined) return;
    const start = this.#clock();
    this.#wrote = true;
    const pending = this.#o.rollUp(cluster, cutoff);
    this.#note(this.#clock() - start);
    await pending;
  }

  /**
   * Whole days of raw history before `cutoff` (a partitioned store): every cluster is summarised
   * first (those in `rolledUp` then skip it), then the days whose every poll the steps would
   * remove are dropped, one log entry per day naming its partitions (its cut-off: the day's end).
   */
  async #dropDays(cutoff: bigint, rolledUp: Set<string>): Promise<void> {
    const { store } = this.#o;
    const oldest = store.oldestPoll();
    if (oldest === undefined || oldest >= cutoff || store.dropPartitions === undefined) return;
    for (const cluster of store.clusters()) {
      if (this.#stopped()) return;
      await this.#rollUp(cluster, cutoff);
      rolledUp.add(cluster);
    }
    await this.#turn();
    if (this.#stopped()) return;
    const start = this.#clock();
    let r: PartitionDropResult;
    try {
      r = store.dropPartitions(cutoff);
    } catch (err) {
      // rolled back whole (a reader's lock held past the time-out, say): the steps remove the rows instead
      this.#o.line?.(
        'retention: dropping day partitions failed, their rows are pruned instead: ' +
          (err instanceof Error ? err.message : String(err)),
      );
      return;
    } finally {
      this.#note(this.#clock() - start);
    }
    const ms = this.#clock() - start;
    if (r.days.length > 0) this.#wrote = true;
    const polls = r.days.reduce((n, d) => n + d.polls, 0) + r.batchPolls;
    this.#o.stats.prunedPolls += polls;
    for (const [i, d] of r.days.entries()) {
      this.#o.stats.prunedBytes += d.bytes;
      for (const c of d.clusters) this.#removedSinceCleanup.add(c);
      store.log({
        at: this.#o.nowNs(),
        action: 'retention-partitions',
        cutoff: BigInt(d.day + 1) * 86_400_000_000_000n,
        // the polls of kept days that went with the dropped days' connection batches count with the last day
        polls: d.polls + (i === r.days.length - 1 ? r.batchPolls : 0),
        samples: d.samples,
        bytes: d.bytes,
        durationMs: ms / r.days.length,
      });
    }
  }

  /** Past `maxSize` bytes in use, the oldest raw history goes, a slice of time at a time. */
  async #pruneSize(maxSize: number, now: bigint): Promise<void> {
    const { store } = this.#o;
    const oldest = store.oldestPoll();
    if (oldest === undefined || store.usedBytes() <= maxSize) return;
    const span = (now - oldest) / 50n > 60_000n * NS_PER_MS ? (now - oldest) / 50n : 60_000n * NS_PER_MS;
    let cutoff = oldest;
    while (store.usedBytes() > maxSize && !this.#stopped()) {
      cutoff += span;
      if (cutoff > now) {
        if (!this.#warnedFull) {
          this.#o.line?.(
            `retention: the database uses more than maxSize (${maxSize} bytes) ` +
              'with only the newest poll of each operation left',
          );
          this.#warnedFull = true;
        }
        return;
      }
      for (const cluster of store.clusters()) await this.#pruneCluster(cluster, cutoff, 'retention-size', now);
    }
    this.#warnedFull = false;
  }

  async #pruneRollups(cutoff: bigint, now: bigint): Promise<void> {
    const t: Totals = { polls: 0, samples: 0, bytes: 0, ms: 0 };
    try {
      for (;;) {
        await this.#turn();
        if (this.#stopped()) break;
        const r = this.#slice(t, () => this.#o.store.pruneRollups(cutoff, this.#budget * 8), undefined);
        if (!r.more) break;
      }
    } finally {
      if (t.samples > 0) this.#log({ action: 'retention-rollups', cutoff }, t, now);
    }
  }

  /** Runs one step, times it, adds it up, and adapts the step size to the slice aimed at. */
  #slice(t: Totals, fn: () => RetentionStepResult, adapt: 'step' | 'cleanup' | undefined): RetentionStepResult {
    const start = this.#clock();
    const r = fn();
    const ms = this.#clock() - start;
    this.#note(ms);
    t.polls += r.polls;
    t.samples += r.samples;
    t.bytes += r.bytes;
    t.ms += ms;
    if (r.polls > 0 || r.samples > 0 || r.bytes > 0) this.#wrote = true;
    this.#o.stats.prunedPolls += r.polls;
    this.#o.stats.prunedBytes += r.bytes;
    if (adapt === 'step') {
      if (ms > this.#sliceMs) this.#budget = Math.max(1, Math.floor(this.#budget / 2));
      else if (ms < this.#sliceMs / 4 && r.more) this.#budget = Math.min(this.#maxPolls, this.#budget * 2);
    } else if (adapt === 'cleanup') {
      if (ms > this.#sliceMs) this.#cleanupBudget = Math.max(64, Math.floor(this.#cleanupBudget / 2));
      else if (ms < this.#sliceMs / 4 && r.more) this.#cleanupBudget = Math.min(4096, this.#cleanupBudget * 2);
    }
    return r;
  }

  #note(ms: number): void {
    if (ms > this.#o.stats.maxPruneDelayMs) this.#o.stats.maxPruneDelayMs = ms;
  }

  /** Lets the event loop run, then waits until no round is in flight. */
  async #turn(): Promise<void> {
    await this.#pause();
    for (let busy = this.#o.roundsInFlight?.(); busy !== undefined; busy = this.#o.roundsInFlight?.()) {
      await busy;
      await this.#pause();
    }
  }

  #log(what: { cluster?: string; action: RetentionLogEntry['action']; cutoff: bigint }, t: Totals, at?: bigint): void {
    this.#o.store.log({
      at: at ?? this.#o.nowNs(),
      ...(what.cluster === undefined ? {} : { cluster: what.cluster }),
      action: what.action,
      cutoff: what.cutoff,
      polls: t.polls,
      samples: t.samples,
      bytes: t.bytes,
      durationMs: t.ms,
    });
  }
}
