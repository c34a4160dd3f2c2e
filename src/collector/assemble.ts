/**
 * The collector assembled: its clients prepared, the live alerts and the health server started,
 * the store opened, then the collector built with its hooks, run (every operation once, or the
 * caller's `body`) and shut down in order, closing what was started when a step fails. The
 * parts that only the command line may join to the collector (the store, the rollup thread, the
 * store thread, the live alerts) are handed in as factories; the command line keeps flags,
 * configuration loading and exit codes.
 */
import type { CollectorConfig } from './config.ts';
import { prepareCluster, type PreparedCluster } from './clients.ts';
import { Collector, type CollectorOptions, type RecordQueueHooks } from './collector.ts';
import type { RecordQueue } from './store-queue.ts';
import type { HealthServer } from './health-server.ts';
import { hostPort } from './health-server.ts';
import { Observability } from './metrics/observability.ts';
import type { AlertDeliveryStats } from './metrics/collector-metrics.ts';
import type { Reporter } from './output.ts';
import type { RetentionStore, RollUp } from './retention-runner.ts';
import type { RoundResult } from './poller.ts';
import type { StoredRound } from './stored-horizon.ts';

/** A recording that could not go on, or could not end as it should: its message says why (exit 1). */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
}

/** The live alerts as the recording sees them: fed each stored round, read for metrics, closed at the end. */
export interface RecordingAlerts {
  readonly stored: (stored: StoredRound) => void;
  stats(): readonly AlertDeliveryStats[];
  close(timeoutMs: number): Promise<void>;
}

/** The rollups of retention, in a thread of their own. */
export interface RecordingRollUps {
  run(cluster: string, untilNs: bigint): Promise<void>;
  /** retention's checkpoint on the rollups' own connection while their thread runs (undefined: not running) */
  checkpoint?(): Promise<unknown> | undefined;
  close(): Promise<void>;
}

/** The store a recording writes into, and its retention side (undefined: no retention). */
export interface RecordingStoreParts {
  readonly writer: CollectorOptions['writer'];
  readonly retentionStore?: RetentionStore;
}

/** The clock of a recording in virtual time (the simulated cluster). */
export interface RecordingClock {
  readonly nowNs?: () => bigint;
  readonly sleep?: CollectorOptions['sleep'];
  readonly callClockNs?: () => bigint;
}

/** What a recording is assembled from. */
export interface RecordingParts {
  readonly config: CollectorConfig;
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => number;
  readonly reporter: Reporter;
  /** what the lines and errors call the store (a URL without its password) */
  readonly storeLabel: string;
  /** the bytes of the store, for the metrics (undefined: not known) */
  readonly dbSize: () => number | undefined;
  /** this collector's identity in cluster leases */
  readonly owner: string;
  /** aborts the recording (SIGINT/SIGTERM): the collector shuts down */
  readonly signal: AbortSignal;
  readonly createCronTask?: CollectorOptions['createTask'];
  readonly clock?: RecordingClock;
  /** the live alerts, started before the store is created (undefined: none configured) */
  readonly startAlerts: () => Promise<RecordingAlerts | undefined>;
  /** opens the store (after the clients, the alerts and the health server are ready) */
  readonly openStore: () => RecordingStoreParts;
  /** the rollups of retention (asked for only when the store has a retention side) */
  readonly startRollUps: () => Promise<RecordingRollUps>;
  /** the write queue in a thread of its own (undefined: the writes happen on this thread) */
  readonly recordQueue?: (hooks: RecordQueueHooks) => RecordQueue;
}

/** How a recording ended. */
export interface RecordingOutcome {
  /** `once`: a poll failed, or a record could not be stored or was lost */
  readonly pollsFailed: boolean;
}

/** Prepares the clients, then records: every operation once (`once`) or `body`; shuts down cleanly. */
export async function runRecording(
  parts: RecordingParts,
  once: boolean,
  body: (collector: Collector) => Promise<unknown>,
): Promise<RecordingOutcome> {
  const { config, reporter, storeLabel: shown } = parts;
  // everything that can be wrong in the configuration is found before the database is created
  const prepared = prepareAll(config, parts.env, (line) => reporter.line(`warning: ${line}`));
  const closeClients = (): void => {
    for (const p of prepared) void Promise.resolve(p.client.close()).catch(() => {});
  };
  let alerts: RecordingAlerts | undefined;
  try {
    alerts = await parts.startAlerts();
  } catch (err) {
    closeClients();
    throw err;
  }
  const obs = observabilityOf(parts);
  let server: HealthServer | undefined;
  if (obs !== undefined && config.listen !== null) {
    try {
      server = await obs.serve(config.listen, (line) => reporter.line(line));
    } catch (err) {
      closeClients();
      await alerts?.close(0);
      const code = (err as { code?: string }).code;
      throw new RecordingError(
        `--listen ${hostPort(config.listen.host, config.listen.port)}: cannot serve there (${code ?? (err instanceof Error ? err.message : String(err))})`,
      );
    }
  }
  let store: RecordingStoreParts;
  try {
    store = parts.openStore();
  } catch (err) {
    closeClients();
    await alerts?.close(0);
    await server?.close();
    throw err;
  }
  // raw history is summarised (rollups) before retention prunes it, in a worker thread (never on this event loop)
  const rollUps = store.retentionStore === undefined ? undefined : await parts.startRollUps();
  const rollUp: RollUp | undefined =
    rollUps === undefined ? undefined : (cluster, untilNs) => rollUps.run(cluster, untilNs);
  const hooks = {
    ...(obs === undefined ? {} : { onRecord: obs.record, onRound: obs.round }),
    ...(alerts === undefined ? {} : { onStored: alerts.stored }),
  };
  const collector = new Collector({
    config,
    writer: store.writer,
    prepared,
    env: parts.env,
    now: parts.now,
    reporter,
    storeLabel: shown,
    owner: parts.owner,
    ...(config.leaseTtlMs === undefined ? {} : { leaseTtlMs: config.leaseTtlMs }),
    ...(store.retentionStore === undefined ? {} : { retentionStore: store.retentionStore }),
    ...(rollUp === undefined ? {} : { rollUp }),
    // the rollups' thread holds the file already: the pass's checkpoint needs no thread of its own then
    ...(rollUps?.checkpoint === undefined ? {} : { checkpointElsewhere: () => rollUps.checkpoint?.() }),
    ...(parts.createCronTask === undefined ? {} : { createTask: parts.createCronTask }),
    ...hooks,
    ...(parts.recordQueue === undefined ? {} : { recordQueue: parts.recordQueue }),
    ...parts.clock,
  });
  obs?.attach(collector.stats);
  if (alerts !== undefined) {
    const live = alerts;
    obs?.attachAlerts(() => live.stats());
  }
  // a rollUp in progress stops with the collector (at its next bucket), so that shutdown is not held up
  collector.stopping.addEventListener('abort', () => void rollUps?.close(), { once: true });
  const onAbort = (): void => void collector.shutdown();
  parts.signal.addEventListener('abort', onAbort, { once: true });
  try {
    if (parts.signal.aborted) {
      await collector.shutdown();
      return { pollsFailed: false };
    }
    let pollsFailed = false;
    if (once) {
      const results = await collector.runAll();
      pollsFailed = failedOnce(results, collector);
      const standby = collector.standby;
      if (standby.length > 0) {
        await collector.shutdown();
        throw new RecordingError(
          `another collector is recording ${standby.join(', ')} into ${shown}; --once does not wait for it: stop it, or give another --db`,
        );
      }
    } else {
      await body(collector);
    }
    const report = await collector.shutdown();
    // the last look of the live timeline, and the alerts still waiting, within the shutdown deadline
    await alerts?.close(config.shutdownTimeoutMs);
    if (collector.fatal !== undefined) throw new RecordingError(collector.fatal.message);
    if (report.unwritten > 0) throw new RecordingError(`${report.unwritten} polls could not be written to ${shown}`);
    return { pollsFailed };
  } finally {
    parts.signal.removeEventListener('abort', onAbort);
    await collector.shutdown();
    await alerts?.close(config.shutdownTimeoutMs);
    await rollUps?.close();
    await server?.close();
  }
}

/** A poll of `--once` failed, or a record could not be stored or was lost. */
function failedOnce(results: readonly RoundResult[], collector: Collector): boolean {
  return (
    results.some((r) => r.failures.length > 0) || collector.stats.unstorable > 0 || collector.stats.lostRecorded > 0
  );
}

/** Loads the secrets and builds the clients of every cluster (before any file is created). */
function prepareAll(config: CollectorConfig, env: NodeJS.ProcessEnv, warn: (line: string) => void): PreparedCluster[] {
  const prepared: PreparedCluster[] = [];
  try {
    for (const c of config.clusters) prepared.push(prepareCluster(c, env, warn));
    return prepared;
  } catch (err) {
    for (const p of prepared) void Promise.resolve(p.client.close()).catch(() => {});
    throw err;
  }
}

/** The metrics and readiness behind --listen (undefined without it); readiness reads the clock of the poll times. */
function observabilityOf(parts: RecordingParts): Observability | undefined {
  if (parts.config.listen === null) return undefined;
  const nowNs = parts.clock?.nowNs;
  const now = nowNs === undefined ? parts.now : () => Number(nowNs() / 1_000_000n);
  return new Observability({ config: parts.config, now, dbSize: parts.dbSize });
}
