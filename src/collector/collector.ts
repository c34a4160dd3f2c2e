/**
 * The collector: one client and call queue per cluster, rounds run on cron schedules (or all
 * at once for `--once`, or in virtual time for `--simulate`), every attempt scrubbed of secrets
 * and handed to the store, and a clean shutdown with a deadline. A record the store cannot
 * take as it is becomes a failed poll saying why; polls the store refuses are held in memory
 * (within a byte budget, the oldest dropped and recorded as lost when writes resume). The
 * database file is checked before every write, and a lease per cluster keeps a second
 * collector on the same database a standby. The collector never exits on its own.
 */
import { randomUUID } from 'node:crypto';
import type { Redactor } from '../api/client/index.ts';
import { timestampFromMillis } from '../api/codec/timestamp.ts';
import type { OperationName } from '../api/schema/operations.ts';
import { StoreLostError, StoreRefusedError, type HistoryWriter, type PollRecord } from '../db/poll-record.ts';
import { createCallQueue } from './call-queue.ts';
import { prepareCluster, type ClientFactory, type PreparedCluster } from './clients.ts';
import type { CollectorConfig } from './config.ts';
import { emptyTopology } from './fanout.ts';
import { HeldPolls, MAX_HELD_POLLS } from './held-polls.ts';
import { DEFAULT_LEASE_TTL_MS, LeaseKeeper } from './lease-keeper.ts';
import { emptyStats, type CollectorStats, type Reporter } from './output.ts';
import { runRound, type ClusterRuntime, type RoundDeps, type RoundResult } from './poller.ts';
import { realSleep, type Sleep } from './retry.ts';
import { createScheduler, OPERATION_ORDER, runVirtual, type Job, type Scheduler, type SchedulerDeps, type VirtualRunDeps } from './schedule.ts';
import { scrubRecord } from './scrub.ts';
import { shadowSkipLine, startupLine } from './startup.ts';
import { targetsOf } from './poller.ts';

/** Most records kept in memory while the store refuses writes (the byte budget usually binds first). */
export const MAX_UNWRITTEN = MAX_HELD_POLLS;

/** Everything a collector is built from; all I/O is injected. */
export interface CollectorOptions {
  readonly config: CollectorConfig;
  readonly writer: HistoryWriter;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** wall clock in ms (used for poll times unless nowNs is given, and for leases) */
  readonly now: () => number;
  /** poll-time clock in ns since the epoch (e.g. the simulated cluster's clock) */
  readonly nowNs?: () => bigint;
  /** where lines and the status line go (default: nowhere) */
  readonly reporter?: Reporter;
  readonly random?: () => number;
  /** pause used for retry back-off and jitter (default: real time) */
  readonly sleep?: Sleep;
  readonly clientFactory?: ClientFactory;
  /** clients and redactors made beforehand (prepareCluster), one per configured cluster, in order */
  readonly prepared?: readonly PreparedCluster[];
  readonly roundId?: () => string;
  /** node-cron task factory override (tests) */
  readonly createTask?: SchedulerDeps['createTask'];
  /** called after every round */
  readonly onRound?: (result: RoundResult) => void;
  /** what the start-up lines call the store (the database path) */
  readonly storeLabel?: string;
  /** this collector's identity in cluster leases (default: a random id) */
  readonly owner?: string;
  /** lease TTL in ms (default 30 s); the heartbeat renews it three times per TTL */
  readonly leaseTtlMs?: number;
  /** pause between lease heartbeats while scheduling in real time (default: real time) */
  readonly heartbeatSleep?: Sleep;
  /** called once when the store is lost for good (the collector then stops) */
  readonly onFatal?: (error: Error) => void;
}

/** How a shutdown went. */
export interface ShutdownReport {
  /** in-flight polls had to be aborted at the deadline */
  readonly aborted: boolean;
  /** records the store never accepted (held at the end, or dropped and never recorded as lost) */
  readonly unwritten: number;
}

const SILENT: Reporter = { round: () => {}, line: () => {}, status: () => {}, done: () => {} };

/** A running (or runnable) collector. */
export class Collector {
  /** live counters for the status line (and a metrics page) */
  readonly stats: CollectorStats = emptyStats();
  /** the clusters, with their clients, queues and learnt topology */
  readonly clusters: readonly ClusterRuntime[];
  readonly #opts: CollectorOptions;
  readonly #reporter: Reporter;
  readonly #stopCtl = new AbortController();
  readonly #abortCtl = new AbortController();
  readonly #deps: RoundDeps;
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #held: HeldPolls;
  readonly #redactors = new Map<string, Redactor>();
  readonly #leases: LeaseKeeper;
  /** cluster and operation whose secret removal was already said */
  readonly #redactionSaid = new Set<string>();
  /** why the store refuses writes, while it does */
  #refusal: string | undefined;
  #fatal: Error | undefined;
  #scheduler: Scheduler | undefined;
  #heartbeat: Promise<void> | undefined;
  #closed: Promise<ShutdownReport> | undefined;

  /** Builds clients for every cluster; a bad secret source or client option throws a ConfigError. */
  constructor(opts: CollectorOptions) {
    this.#opts = opts;
    this.#reporter = opts.reporter ?? SILENT;
    const warn = (line: string): void => this.#reporter.line(`warning: ${line}`);
    const clusters: ClusterRuntime[] = [];
    const made: PreparedCluster[] = [];
    try {
      opts.config.clusters.forEach((config, i) => {
        const p = opts.prepared?.[i] ?? prepareCluster(config, opts.env, warn, opts.clientFactory);
        made.push(p);
        this.#redactors.set(config.name, p.redactor);
        clusters.push({ config, client: p.client, queue: createCallQueue(), topology: emptyTopology() });
      });
    } catch (err) {
      for (const c of made) void Promise.resolve(c.client.close()).catch(() => {});
      throw err;
    }
    this.clusters = clusters;
    this.#held = new HeldPolls(opts.config.maxHeldBytes, MAX_UNWRITTEN);
    this.#leases = new LeaseKeeper({
      ...(opts.writer.leases === undefined ? {} : { leases: opts.writer.leases }),
      owner: opts.owner ?? `collector ${randomUUID().slice(0, 8)}`,
      now: opts.now,
      ttlMs: opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
      line: (text) => this.#reporter.line(text),
    });
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

  /** The error that stopped the collector (the database file lost for good), if any. */
  get fatal(): Error | undefined {
    return this.#fatal;
  }

  /** Clusters this collector waits on as a standby (another collector holds their lease). */
  get standby(): string[] {
    return this.#leases.standby;
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

  /**
   * Runs one round of `op` on the named cluster now (what a schedule firing does). While another
   * collector holds the cluster's lease the round polls nothing and is marked `standby`.
   */
  runRound(cluster: string, op: OperationName, scheduledAt?: bigint): Promise<RoundResult> {
    const rt = this.clusters.find((c) => c.config.name === cluster);
    if (rt === undefined) throw new Error(`no cluster named ${cluster}`);
    const at = scheduledAt ?? this.#deps.nowNs();
    const p = (async (): Promise<RoundResult> => {
      this.#checkFile();
      if (this.stopping.aborted || !(await this.#leases.hold(cluster))) return standbyRound(rt, op, at, this.#deps);
      return runRound(rt, op, this.#deps, at);
    })().then((r) => {
      if (r.standby === true) {
        this.stats.standbyRounds++;
      } else {
        this.stats.rounds++;
        if (r.failures.length > 0) this.stats.failedRounds++;
        this.#reporter.round(r);
      }
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
    this.#announce(true);
    const byCluster = new Map<string, Job[]>();
    for (const j of this.jobs()) byCluster.set(j.cluster, [...(byCluster.get(j.cluster) ?? []), j]);
    const results = await Promise.all(
      [...byCluster.values()].map(async (jobs) => {
        const out: RoundResult[] = [];
        for (const j of jobs) {
          if (this.stopping.aborted) break;
          const r = await this.runRound(j.cluster, j.op);
          out.push(r);
          if (r.standby === true) break;
        }
        return out;
      }),
    );
    return results.flat();
  }

  /** Starts the cron schedules (real time) and the lease heartbeat. */
  start(): void {
    if (this.#scheduler !== undefined || this.stopping.aborted) return;
    const jobs = this.jobs();
    this.#announce(false);
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
    if (this.#opts.writer.leases !== undefined) this.#heartbeat = this.#beat();
    this.#reporter.status(this.stats);
  }

  /** Runs the schedules in virtual time until `untilMs` (the simulated cluster's clock). */
  runVirtual(untilMs: number, deps: Omit<VirtualRunDeps, 'fire' | 'stopping'>): Promise<number> {
    this.#announce(false);
    return runVirtual(this.jobs(), untilMs, {
      ...deps,
      fire: (job) => this.runRound(job.cluster, job.op),
      stopping: this.stopping,
    });
  }

  /**
   * Stops scheduling, lets rounds in flight finish until the shutdown deadline, then aborts
   * the calls still running; writes what it can, gives up its leases, closes the clients and the store.
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
    await this.#heartbeat;
    this.#flush();
    if (this.#fatal === undefined) await this.#leases.releaseAll();
    for (const rt of this.clusters) {
      try {
        await rt.client.close();
      } catch {
        // closing a connection pool cannot lose data
      }
    }
    const unwritten = this.#held.size + this.#held.lostPending;
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

  /** Renews the leases between rounds, three times per TTL, until the collector stops. */
  async #beat(): Promise<void> {
    const every = Math.max(1, Math.floor((this.#opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS) / 3));
    const sleep = this.#opts.heartbeatSleep ?? realSleep;
    while (await sleep(every, this.stopping)) {
      for (const rt of this.clusters) {
        if (this.stopping.aborted) return;
        await this.#leases.hold(rt.config.name);
      }
    }
  }

  /** The start-up lines: one per cluster, plus the shadow operations skipped and why. */
  #announce(once: boolean): void {
    const store = this.#opts.storeLabel ?? 'the database';
    for (const rt of this.clusters) {
      this.#reporter.line(startupLine(rt.config, store, once));
      const skipped = shadowSkipLine(rt.config);
      if (skipped !== undefined) this.#reporter.line(skipped);
    }
  }

  #record(record: PollRecord): void {
    this.stats.polls++;
    if (!record.outcome.ok) this.stats.errors++;
    const redactor = this.#redactors.get(record.cluster);
    const clean = redactor === undefined ? record : scrubRecord(record, redactor, record.redactions ?? 0);
    if ((clean.redactions ?? 0) > 0) {
      this.stats.redactions += clean.redactions ?? 0;
      const key = `${record.cluster}\u0000${record.operation}`;
      if (!this.#redactionSaid.has(key)) {
        this.#redactionSaid.add(key);
        this.#reporter.line(
          `warning: ${record.cluster} ${record.operation}: the answer held a configured secret (${clean.redactions} occurrence${clean.redactions === 1 ? '' : 's'}); ` +
            'it was removed before storing and the poll records that it was (later ones are counted, not printed)',
        );
      }
    }
    // behind any held records, so that polls reach the store (and get their ids) in time order
    this.#held.push(clean);
    this.#flush();
    if (this.#held.size > 0) this.#lighten(clean); // still held: it is the newest
    const dropped = this.#held.enforce();
    if (dropped > 0) this.stats.dropped += dropped;
    this.#updateHeld();
    this.#reporter.status(this.stats);
  }

  /** A held successful answer keeps no raw bytes the store will not keep anyway. */
  #lighten(record: PollRecord): void {
    const o = record.outcome;
    if (!o.ok || o.raw === undefined || this.#opts.config.keepRawAnswers) return;
    const { raw: _raw, ...rest } = o;
    this.#held.replaceNewest({ ...record, outcome: rest });
  }

  #updateHeld(): void {
    this.stats.unwritten = this.#held.size;
    this.stats.heldBytes = this.#held.bytes;
  }

  /** Checks the database file; a lost store stops the collector. */
  #checkFile(): boolean {
    if (this.#fatal !== undefined) return false;
    try {
      const check = this.#opts.writer.checkFile?.();
      if (check?.reopened === true) {
        this.stats.reopened++;
        this.#reporter.line(`error: ${check.message ?? 'the database file was replaced; a new one was opened'}`);
      }
      return true;
    } catch (err) {
      if (!(err instanceof StoreLostError)) throw err;
      this.#fatal = err;
      this.#reporter.line(`error: ${err.message}; recording stopped`);
      this.#stopCtl.abort();
      this.#opts.onFatal?.(err);
      return false;
    }
  }

  /** Writes lost-poll records, then the held records, oldest first, until the store refuses one. */
  #flush(): void {
    if (!this.#checkFile()) return;
    while (this.#held.size > 0 || this.#held.lostPending > 0) {
      if (this.#held.lostPending > 0) {
        if (!this.#writeLost()) break;
        continue;
      }
      const head = this.#held.head()!;
      if (!this.#store(head)) break;
      this.#held.shift();
    }
    this.#updateHeld();
  }

  #writeLost(): boolean {
    for (const { key, record } of this.#held.lostRecords(this.#refusal ?? 'unknown cause', this.#deps.roundId)) {
      if (!this.#store(record)) return false;
      this.#held.recorded(key);
      this.stats.lostRecorded++;
      this.#reporter.line(`error: ${record.cluster} ${record.operation}${record.target === '' ? '' : ` ${record.target}`}: ${record.outcome.ok ? '' : record.outcome.message}`);
    }
    return true;
  }

  /** Stores one record; false when the store refuses it (it stays held). */
  #store(record: PollRecord): boolean {
    try {
      const stored = this.#opts.writer.storePoll(record);
      if (stored.substituted !== undefined) {
        this.stats.unstorable++;
        this.#reporter.line(
          `error: ${record.cluster} ${record.operation}: this answer cannot be stored as received (${stored.substituted}); ` +
            `it was stored as failed poll ${stored.id} with its raw bytes`,
        );
      }
      if (this.#refusal !== undefined) {
        this.#refusal = undefined;
        this.#reporter.line('the database accepts writes again');
      }
      return true;
    } catch (err) {
      const cause = err instanceof StoreRefusedError ? err.message : err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      if (this.#refusal === undefined) {
        this.#refusal = cause;
        this.#reporter.line(
          `error: cannot write a poll (${record.cluster} ${record.operation}) to the database: ${cause}; ` +
            `polls are kept in memory (up to ${Math.round(this.#opts.config.maxHeldBytes / 1048576)} MiB, then the oldest are dropped and recorded as lost) ` +
            'and written when the database accepts writes again',
        );
      }
      return false;
    }
  }
}

/** The result of a round not run because another collector holds the cluster's lease. */
function standbyRound(rt: ClusterRuntime, op: OperationName, scheduledAt: bigint, deps: RoundDeps): RoundResult {
  const now = deps.nowNs();
  return {
    cluster: rt.config.name,
    operation: op,
    round: '',
    scheduledAt,
    targets: targetsOf(op, rt.config).length,
    calls: 0,
    failedCalls: 0,
    failures: [],
    stopped: deps.stopping.aborted,
    standby: !deps.stopping.aborted,
    startedAt: now,
    endedAt: now,
  };
}
