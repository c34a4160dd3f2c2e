/**
 * The collector: one client and call queue per cluster, rounds run on cron schedules (or all
 * at once for `--once`, or in virtual time for `--simulate`), every attempt handed to the
 * store, and a clean shutdown with a deadline. A store that refuses writes is reported and
 * its records are kept in memory; the collector never exits on its own.
 */
import { randomUUID } from 'node:crypto';
import { timestampFromMillis } from '../api/codec/timestamp.ts';
import type { OperationName } from '../api/schema/operations.ts';
import type { HistoryWriter, PollRecord } from '../db/poll-record.ts';
import { createCallQueue } from './call-queue.ts';
import { createClusterClient, type ClientFactory } from './clients.ts';
import type { CollectorConfig } from './config.ts';
import { emptyTopology } from './fanout.ts';
import { emptyStats, type CollectorStats, type Reporter } from './output.ts';
import { runRound, targetsOf, type ClusterRuntime, type RoundDeps, type RoundResult } from './poller.ts';
import { realSleep, type Sleep } from './retry.ts';
import { createScheduler, OPERATION_ORDER, runVirtual, type Job, type Scheduler, type SchedulerDeps, type VirtualRunDeps } from './schedule.ts';

/** Most records kept in memory while the store refuses writes. */
export const MAX_UNWRITTEN = 10_000;

/** Everything a collector is built from; all I/O is injected. */
export interface CollectorOptions {
  readonly config: CollectorConfig;
  readonly writer: HistoryWriter;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** wall clock in ms (used for poll times unless nowNs is given) */
  readonly now: () => number;
  /** poll-time clock in ns since the epoch (e.g. the simulated cluster's clock) */
  readonly nowNs?: () => bigint;
  /** where lines and the status line go (default: nowhere) */
  readonly reporter?: Reporter;
  readonly random?: () => number;
  /** pause used for retry back-off and jitter (default: real time) */
  readonly sleep?: Sleep;
  readonly clientFactory?: ClientFactory;
  readonly roundId?: () => string;
  /** node-cron task factory override (tests) */
  readonly createTask?: SchedulerDeps['createTask'];
  /** called after every round */
  readonly onRound?: (result: RoundResult) => void;
}

/** How a shutdown went. */
export interface ShutdownReport {
  /** in-flight polls had to be aborted at the deadline */
  readonly aborted: boolean;
  /** records the store never accepted */
  readonly unwritten: number;
}

const SILENT: Reporter = { round: () => {}, line: () => {}, status: () => {}, done: () => {} };

/** A running (or runnable) collector. */
export class Collector {
  /** live counters for the status line */
  readonly stats: CollectorStats = emptyStats();
  /** the clusters, with their clients, queues and learnt topology */
  readonly clusters: readonly ClusterRuntime[];
  readonly #opts: CollectorOptions;
  readonly #reporter: Reporter;
  readonly #stopCtl = new AbortController();
  readonly #abortCtl = new AbortController();
  readonly #deps: RoundDeps;
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #unwritten: PollRecord[] = [];
  #writeFailing = false;
  #dropped = 0;
  #scheduler: Scheduler | undefined;
  #closed: Promise<ShutdownReport> | undefined;

  /** Builds clients for every cluster; a bad secret source or client option throws a ConfigError. */
  constructor(opts: CollectorOptions) {
    this.#opts = opts;
    this.#reporter = opts.reporter ?? SILENT;
    const warn = (line: string): void => this.#reporter.line(`warning: ${line}`);
    const clusters: ClusterRuntime[] = [];
    try {
      for (const config of opts.config.clusters) {
        const client = createClusterClient(config, opts.env, warn, opts.clientFactory);
        clusters.push({ config, client, queue: createCallQueue(), topology: emptyTopology() });
      }
    } catch (err) {
      for (const c of clusters) void Promise.resolve(c.client.close()).catch(() => {});
      throw err;
    }
    this.clusters = clusters;
    this.#deps = {
      record: (r) => this.#record(r),
      nowNs: opts.nowNs ?? (() => timestampFromMillis(opts.now())),
      retry: opts.config.retry,
      sleep: opts.sleep ?? realSleep,
      random: opts.random ?? Math.random,
      stopping: this.#stopCtl.signal,
      abort: this.#abortCtl.signal,
      roundId: opts.roundId ?? randomUUID,
    };
  }

  /** Aborted once a shutdown begins. */
  get stopping(): AbortSignal {
    return this.#stopCtl.signal;
  }

  /** The enabled schedules: operations switched on and with something to poll. */
  jobs(): Job[] {
    const jobs: Job[] = [];
    for (const rt of this.clusters) {
      for (const op of OPERATION_ORDER) {
        const expression = rt.config.schedules[op];
        if (expression === null || targetsOf(op, rt.config).length === 0) continue;
        jobs.push({ cluster: rt.config.name, op, expression });
      }
    }
    return jobs;
  }

  /** Runs one round of `op` on the named cluster now (what a schedule firing does). */
  runRound(cluster: string, op: OperationName, scheduledAt?: bigint): Promise<RoundResult> {
    const rt = this.clusters.find((c) => c.config.name === cluster);
    if (rt === undefined) throw new Error(`no cluster named ${cluster}`);
    const p = runRound(rt, op, this.#deps, scheduledAt).then((r) => {
      this.stats.rounds++;
      if (r.failures.length > 0) this.stats.failedRounds++;
      this.#reporter.round(r);
      this.#reporter.status(this.stats);
      this.#opts.onRound?.(r);
      return r;
    });
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p)).catch(() => {});
    return p;
  }

  /** Polls every enabled operation of every cluster once (clusters in parallel, operations in order). */
  async runAll(): Promise<RoundResult[]> {
    const byCluster = new Map<string, Job[]>();
    for (const j of this.jobs()) byCluster.set(j.cluster, [...(byCluster.get(j.cluster) ?? []), j]);
    const results = await Promise.all(
      [...byCluster.values()].map(async (jobs) => {
        const out: RoundResult[] = [];
        for (const j of jobs) {
          if (this.stopping.aborted) break;
          out.push(await this.runRound(j.cluster, j.op));
        }
        return out;
      }),
    );
    return results.flat();
  }

  /** Starts the cron schedules (real time). */
  start(): void {
    if (this.#scheduler !== undefined || this.stopping.aborted) return;
    const jobs = this.jobs();
    this.#reportUnpolled();
    if (jobs.length === 0) this.#reporter.line('nothing to poll: every schedule is off or has nothing to ask');
    this.#scheduler = createScheduler(jobs, {
      fire: (job) => this.runRound(job.cluster, job.op),
      jitterMs: this.#opts.config.jitterMs,
      random: this.#deps.random,
      sleep: this.#deps.sleep,
      stopping: this.stopping,
      onSkip: (job) => this.#reporter.line(`${job.cluster} ${job.op}: previous round still running; this firing is skipped`),
      log: (line) => this.#reporter.line(line),
      ...(this.#opts.createTask === undefined ? {} : { createTask: this.#opts.createTask }),
    });
    this.#scheduler.start();
    this.#reporter.status(this.stats);
  }

  /** Runs the schedules in virtual time until `untilMs` (the simulated cluster's clock). */
  runVirtual(untilMs: number, deps: Omit<VirtualRunDeps, 'fire' | 'stopping'>): Promise<number> {
    this.#reportUnpolled();
    return runVirtual(this.jobs(), untilMs, {
      ...deps,
      fire: (job) => this.runRound(job.cluster, job.op),
      stopping: this.stopping,
    });
  }

  /**
   * Stops scheduling, lets rounds in flight finish until the shutdown deadline, then aborts
   * the calls still running; writes what it can, closes the clients and the store.
   */
  shutdown(): Promise<ShutdownReport> {
    this.#closed ??= this.#shutdown();
    return this.#closed;
  }

  async #shutdown(): Promise<ShutdownReport> {
    this.#stopCtl.abort();
    await this.#scheduler?.stop();
    const deadline = this.#opts.config.shutdownTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), deadline);
    });
    const finished = (async () => {
      await this.#drain();
      return false;
    })();
    const aborted = await Promise.race([finished, timedOut]);
    clearTimeout(timer);
    if (aborted) {
      this.#reporter.line(`shutdown: polls still running after ${deadline} ms are aborted`);
      this.#abortCtl.abort();
      await this.#drain();
    }
    this.#flush();
    for (const rt of this.clusters) {
      try {
        await rt.client.close();
      } catch {
        // closing a connection pool cannot lose data
      }
    }
    const unwritten = this.#unwritten.length;
    if (unwritten > 0) this.#reporter.line(`error: ${unwritten} polls could not be written to the database and are lost`);
    try {
      this.#opts.writer.close();
    } catch (err) {
      this.#reporter.line(`error: closing the database failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.#reporter.done();
    return { aborted, unwritten };
  }

  async #drain(): Promise<void> {
    await this.#scheduler?.drain();
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }

  #reportUnpolled(): void {
    for (const rt of this.clusters) {
      const off = OPERATION_ORDER.filter((op) => rt.config.schedules[op] !== null && targetsOf(op, rt.config).length === 0);
      if (off.length > 0) {
        this.#reporter.line(`${rt.config.name}: not polled, no shadow link or topic configured: ${off.join(', ')}`);
      }
    }
  }

  #record(record: PollRecord): void {
    this.stats.polls++;
    if (!record.outcome.ok) this.stats.errors++;
    // behind any held records, so that polls reach the store (and get their ids) in time order
    this.#unwritten.push(record);
    this.#flush();
    if (this.#unwritten.length > MAX_UNWRITTEN) {
      this.#unwritten.shift();
      this.#dropped++;
    }
    this.stats.unwritten = this.#unwritten.length;
    this.#reporter.status(this.stats);
  }

  #tryWrite(record: PollRecord): boolean {
    try {
      this.#opts.writer.writePoll(record);
      if (this.#writeFailing) {
        this.#writeFailing = false;
        this.#reporter.line('the database accepts writes again');
      }
      return true;
    } catch (err) {
      if (!this.#writeFailing) {
        this.#writeFailing = true;
        const cause = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        this.#reporter.line(
          `error: cannot write a poll (${record.cluster} ${record.operation}) to the database: ${cause}; ` +
            'polls are kept in memory and written when the database accepts writes again',
        );
      }
      return false;
    }
  }

  /** Writes the held records oldest first, stopping at the first the store refuses. */
  #flush(): void {
    while (this.#unwritten.length > 0) {
      if (!this.#tryWrite(this.#unwritten[0]!)) break;
      this.#unwritten.shift();
    }
    this.stats.unwritten = this.#unwritten.length;
    if (this.#dropped > 0 && this.#unwritten.length === 0) {
      this.#reporter.line(`error: ${this.#dropped} polls were dropped while the database refused writes`);
      this.#dropped = 0;
    }
  }
}
