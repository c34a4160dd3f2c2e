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
import type { HistoryWriter, PollRecord, StoreLostError } from '../db/poll-record.ts';
import { createCallQueue } from './call-queue.ts';
import { prepareCluster, type ClientFactory, type PreparedCluster } from './clients.ts';
import type { CollectorConfig } from './config.ts';
import { emptyTopology } from './fanout.ts';
import { MAX_HELD_POLLS } from './held-polls.ts';
import { DEFAULT_LEASE_TTL_MS, LeaseKeeper } from './lease-keeper.ts';
import { emptyStats, type CollectorStats, type Reporter } from './output.ts';
import { runRound, targetsOf, type ClusterRuntime, type RoundDeps, type RoundResult } from './poller.ts';
import { RetentionRunner, retentionEnabled, type RetentionStore, type RollUp } from './retention-runner.ts';
import { realSleep, type Sleep } from './retry.ts';
import {
  createScheduler,
  OPERATION_ORDER,
  runVirtual,
  type Job,
  type Scheduler,
  type SchedulerDeps,
  type VirtualRunDeps,
} from './schedule.ts';
import { RecordSink } from './record-sink.ts';
import type { RecordQueue, StoreCounters } from './store-queue.ts';
import { shadowSkipLine, startupLine } from './startup.ts';
import { StoredHorizon, type StoredRound } from './stored-horizon.ts';

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
  /** a monotonic clock (ns) that times each call, when the poll-time clock stands still during calls (a simulated cluster at real speed) */
  readonly callClockNs?: () => bigint;
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
  /**
   * called once a round's polls are stored (not for standby rounds), with the time before which
   * every poll of its cluster is stored: the new polls can be read back without cutting a round
   */
  readonly onStored?: (stored: StoredRound) => void;
  /** called with every poll attempt once its secrets are removed, before it is stored */
  readonly onRecord?: (record: PollRecord) => void;
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
  /** the store's retention side: with `config.retention` set, the collector prunes between polls */
  readonly retentionStore?: RetentionStore;
  /** summarises raw history before retention prunes it (the rollups) */
  readonly rollUp?: RollUp;
  /** retention's checkpoint in the rollups' thread while it runs (RetentionRunnerOptions.checkpointElsewhere) */
  readonly checkpointElsewhere?: () => Promise<unknown> | undefined;
  /** makes the queue records are written through (default: `writer`, on this thread): the store thread */
  readonly recordQueue?: (hooks: RecordQueueHooks) => RecordQueue;
}

/** What the collector gives the write queue it is handed (recordQueue). */
export interface RecordQueueHooks {
  /** the collector's counters of held, dropped and unstorable records */
  readonly counters: StoreCounters;
  /** prints one line */
  readonly line: (text: string) => void;
  /** called once when the store is lost for good */
  readonly onFatal: (err: StoreLostError) => void;
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
  readonly #sink: RecordSink;
  readonly #leases: LeaseKeeper;
  #scheduler: Scheduler | undefined;
  #heartbeat: Promise<void> | undefined;
  #closed: Promise<ShutdownReport> | undefined;
  readonly #retention: RetentionRunner | undefined;
  readonly #horizon = new StoredHorizon();

  /** Builds clients for every cluster; a bad secret source or client option throws a ConfigError. */
  constructor(opts: CollectorOptions) {
    this.#opts = opts;
    this.#reporter = opts.reporter ?? SILENT;
    const warn = (line: string): void => this.#reporter.line(`warning: ${line}`);
    const clusters: ClusterRuntime[] = [];
    const made: PreparedCluster[] = [];
    const redactors = new Map<string, Redactor>();
    try {
      opts.config.clusters.forEach((config, i) => {
        const p = opts.prepared?.[i] ?? prepareCluster(config, opts.env, warn, opts.clientFactory);
        made.push(p);
        redactors.set(config.name, p.redactor);
        clusters.push({ config, client: p.client, queue: createCallQueue(), topology: emptyTopology() });
      });
    } catch (err) {
      for (const c of made) void Promise.resolve(c.client.close()).catch(() => {});
      throw err;
    }
    this.clusters = clusters;
    const onFatal = (err: StoreLostError): void => {
      this.#stopCtl.abort();
      opts.onFatal?.(err);
    };
    const queue = opts.recordQueue?.({
      counters: this.stats,
      line: (text) => this.#reporter.line(text),
      onFatal,
    });
    this.#sink = new RecordSink({
      writer: opts.writer,
      stats: this.stats,
      reporter: this.#reporter,
      redactors,
      maxHeldBytes: opts.config.maxHeldBytes,
      keepRawAnswers: opts.config.keepRawAnswers,
      roundId: opts.roundId ?? randomUUID,
      ...(opts.onRecord === undefined ? {} : { observe: opts.onRecord }),
      onFatal,
      ...(queue === undefined ? {} : { queue }),
    });
    this.#leases = new LeaseKeeper({
      ...(opts.writer.leases === undefined ? {} : { leases: opts.writer.leases }),
      owner: opts.owner ?? `collector ${randomUUID().slice(0, 8)}`,
      now: opts.now,
      ttlMs: opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS,
      line: (text) => this.#reporter.line(text),
    });
    this.#deps = {
      record: (r) => this.#sink.record(r),
      nowNs: opts.nowNs ?? (() => timestampFromMillis(opts.now())),
      ...(opts.callClockNs === undefined ? {} : { callClockNs: opts.callClockNs }),
      retry: opts.config.retry,
      sleep: opts.sleep ?? realSleep,
      random: opts.random ?? Math.random,
      stopping: this.#stopCtl.signal,
      abort: this.#abortCtl.signal,
      roundId: opts.roundId ?? randomUUID,
    };
    const store = opts.retentionStore;
    this.#retention =
      store === undefined || !retentionEnabled(opts.config.retention)
        ? undefined
        : new RetentionRunner({
            retention: opts.config.retention,
            store,
            stats: this.stats,
            nowNs: this.#deps.nowNs,
            roundsInFlight: () => (this.#inflight.size === 0 ? undefined : Promise.allSettled([...this.#inflight])),
            line: (text) => this.#reporter.line(text),
            stopping: this.stopping,
            ...(opts.rollUp === undefined ? {} : { rollUp: opts.rollUp }),
            ...(opts.checkpointElsewhere === undefined ? {} : { checkpointElsewhere: opts.checkpointElsewhere }),
          });
  }

  /** Aborted once a shutdown begins. */
  get stopping(): AbortSignal {
    return this.#stopCtl.signal;
  }

  /** The error that stopped the collector (the database file lost for good), if any. */
  get fatal(): Error | undefined {
    return this.#sink.fatal;
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
    const token = this.#horizon.begin(cluster, at);
    const p = (async (): Promise<RoundResult> => {
      this.#sink.checkFile();
      if (this.stopping.aborted || !(await this.#leases.hold(cluster))) return standbyRound(rt, op, at, this.#deps);
      const r = await runRound(rt, op, this.#deps, at);
      // written in the store thread: the round ends when its records are stored
      const written = this.#sink.written(r.round);
      if (written === undefined) return r;
      await written;
      return { ...r, endedAt: this.#deps.nowNs() };
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
      if (r.standby === true) this.#horizon.drop(token);
      else this.#stored(token, r);
      // a standby leaves the store to the collector holding the lease
      if (r.standby !== true) this.#retention?.kick();
      return r;
    });
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p)).catch(() => this.#horizon.drop(token));
    return p;
  }

  /** Tells onStored that a round is stored, and how far its cluster's polls are; its faults never reach the round. */
  #stored(token: number, r: RoundResult): void {
    const settledBefore = this.#horizon.end(token, r.endedAt, this.#deps.nowNs());
    try {
      this.#opts.onStored?.({ result: r, settledBefore });
    } catch (err) {
      this.#reporter.line(`error: after the round: ${err instanceof Error ? err.message : String(err)}`);
    }
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
      onSkip: (job) =>
        this.#reporter.line(`${job.cluster} ${job.op}: previous round still running; this firing is skipped`),
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
      // in virtual time retention runs to its end between rounds (no real time passes)
      fire: async (job) => {
        const r = await this.runRound(job.cluster, job.op);
        await this.#retention?.idle();
        return r;
      },
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
    await this.#retention?.idle();
    await this.#sink.flush();
    if (this.#sink.fatal === undefined) await this.#leases.releaseAll();
    for (const rt of this.clusters) {
      try {
        await rt.client.close();
      } catch {
        // closing a connection pool cannot lose data
      }
    }
    const unwritten = this.#sink.unwritten;
    await this.#sink.close();
    if (unwritten > 0)
      this.#reporter.line(`error: ${unwritten} polls could not be written to the database and are lost`);
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
        await this.#leases.hold(rt.config.name, { renew: true });
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
