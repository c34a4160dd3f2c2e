/**
 * `flightrec collect`: record one or more clusters on cron schedules until SIGINT/SIGTERM,
 * poll everything once (`--once`: exit 0, or 3 when a poll failed), or record the simulated
 * cluster in accelerated time (`--simulate [SCENARIO] --speed X --for DURATION`).
 */
import { statSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import {
  Collector,
  createReporter,
  parseDurationMs,
  readConfigFile,
  realSleep,
  type CollectFlags,
  type CollectorConfig,
  type RecordQueueHooks,
  type Reporter,
} from '../../collector/index.ts';
import { DEFAULT_START_NS, wallClockStart } from '../../sim/time.ts';
import { EXIT, RuntimeError, UsageError, type CliIo } from '../context.ts';
import { launcherFor } from '../launcher.ts';
import { simStart } from '../sim-start.ts';
import { dbOpenOptions, dbOpenTarget, dbShown, redactingReporter } from '../db-target.ts';
import { engineFor } from '../../db/engines/registry.ts';
import { StoreThread } from '../store-thread.ts';
import { runRecording, type RecordingClock, type RecordingStoreParts } from '../../collector/assemble.ts';
import { createJsonReporter, jsonLineOf } from '../../collector/json-log.ts';
import { globalOptionsHelp } from './help.ts';
import { addConnectionOptions, type ConnectionOpts } from './connection-options.ts';
import type { RollUpThread } from '../../report/rollup/index.ts';
import { openRecordingStore, RetentionPruner, type FlightrecDb } from '../../db/index.ts';
import { checkFilter, compileOrderBy, FilterError } from '../../filter/index.ts';
import { ThresholdError } from '../../report/timeline/thresholds.ts';
import type { LiveAlerts } from '../../alerts/index.ts';
import type { AlertFlags } from '../../collector/config-alerts.ts';
import { timestampFromMillis } from '../../api/codec/timestamp.ts';

/** The options of `collect` as commander gives them. */
interface CollectOpts extends ConnectionOpts {
  link: string[];
  pageSize?: string;
  schedule: string[];
  keepRawAnswers?: boolean;
  maxAnswerSize?: string;
  maxHeldMemory?: string;
  retentionRaw?: string;
  retentionRollups?: string;
  retentionMaxSize?: string;
  jitter?: string;
  shutdownTimeout?: string;
  once?: boolean;
  simulate?: string | boolean;
  speed?: string;
  for?: string;
  seed?: string;
  connections?: string;
  start?: string;
  listen?: string;
  logFormat?: string;
  alertmanager?: string[];
  webhook?: string[];
  webhookSecretEnv?: string;
  webhookSecretFile?: string;
}

interface GlobalOpts {
  db: string;
  dbPasswordFile?: string;
  config?: string;
  cluster?: string;
}

const collect = (v: string, prev: string[]): string[] => [...prev, v];

/** Registers `collect`. */
export function registerCollect(program: Command, io: CliIo, done: (code: number) => void): void {
  addConnectionOptions(
    program
      .command('collect')
      .description('record clusters: poll the admin API on schedules and store every answer and failure'),
  )
    .option(
      '--link <link[:topic,...]>',
      'shadow link to follow, with topics for GetShadowTopic (repeatable)',
      collect,
      [],
    )
    .option('--page-size <n>', 'ListKafkaConnections pageSize (0: server default)')
    .option(
      '--schedule <op=cron>',
      'schedule of an operation or group: cron with six fields (seconds first) or five, or off (repeatable)',
      collect,
      [],
    )
    .option('--keep-raw-answers', 'also keep the raw body (compressed) of successful answers')
    .option(
      '--max-answer-size <size>',
      'largest answer read, e.g. 64MiB (default 128MiB); larger ones are recorded as failed polls',
    )
    .option(
      '--max-held-memory <size>',
      'memory for polls held while the database refuses writes (default 256MiB); past it the oldest are dropped and recorded as lost',
    )
    .option('--retention-raw <duration>', 'prune polls older than this while recording, e.g. 14d (default: forever)')
    .option(
      '--retention-rollups <duration>',
      'prune rollups older than this while recording, e.g. 400d (default: forever)',
    )
    .option(
      '--retention-max-size <size>',
      'past this size in use, e.g. 20GiB, prune the oldest polls first (default: none)',
    )
    .option('--jitter <duration>', 'most random delay before a scheduled round (default 2s)')
    .option('--shutdown-timeout <duration>', 'how long polls in flight may finish on SIGINT/SIGTERM (default 10s)')
    .option('--once', 'poll every operation once and exit: 0, or 3 when a poll failed')
    .option('--simulate [scenario]', 'record the built-in simulated cluster (in-process, 127.0.0.1, ephemeral port)')
    .option(
      '--speed <x>',
      'with --simulate: simulated seconds per real second (default: as fast as possible with --for)',
    )
    .option('--for <duration>', 'with --simulate: stop after this much simulated time, e.g. 10m')
    .addOption(new Option('--seed <n>', 'with --simulate: world seed'))
    .addOption(new Option('--connections <n>', 'with --simulate: number of open connections'))
    .option(
      '--start <time>',
      "with --simulate: the world's start (default 2026-01-01T00:00:00Z accelerated, now in real time)",
    )
    .option(
      '--listen <[host:]port>',
      'serve /metrics, /healthz and /readyz there (a bare port: 127.0.0.1; default: off)',
    )
    .option('--log-format <format>', 'stderr lines as text (default) or json (one object per line)')
    .option(
      '--alertmanager <url>',
      'send live alerts to this Alertmanager (API v2; repeatable; credentials and TLS in the config file)',
      collect,
      [],
    )
    .option('--webhook <url>', 'post live alerts to this URL as JSON (repeatable)', collect, [])
    .option('--webhook-secret-env <name>', 'sign the --webhook posts (HMAC-SHA256) with the key in this variable')
    .option('--webhook-secret-file <path>', 'sign the --webhook posts (HMAC-SHA256) with the key in this file')
    .addHelpText(
      'after',
      globalOptionsHelp({
        db: 'the history database to record into (created mode 0600 when missing)',
        cluster: 'the cluster the flags and FLIGHTREC_* variables apply to (env FLIGHTREC_CLUSTER)',
        config: 'clusters, schedules, retry and the other collector settings',
      }),
    )
    .action(async (opts: CollectOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts & CollectOpts>();
      done(await runCollect(opts, g, io));
    });
}

function flagsOf(opts: CollectOpts, cluster: string | undefined): CollectFlags {
  return {
    cluster,
    baseUrl: opts.baseUrl,
    servicePrefix: opts.servicePrefix,
    timeout: opts.timeout,
    username: opts.username,
    passwordEnv: opts.passwordEnv,
    passwordFile: opts.passwordFile,
    tokenEnv: opts.tokenEnv,
    tokenFile: opts.tokenFile,
    caFile: opts.caFile,
    certFile: opts.certFile,
    keyFile: opts.keyFile,
    insecureSkipVerify: opts.insecureSkipVerify,
    link: opts.link,
    pageSize: opts.pageSize,
    schedule: opts.schedule,
    jitter: opts.jitter,
    shutdownTimeout: opts.shutdownTimeout,
    keepRawAnswers: opts.keepRawAnswers,
    maxAnswerSize: opts.maxAnswerSize,
    maxHeldMemory: opts.maxHeldMemory,
    listen: opts.listen,
    logFormat: opts.logFormat,
    retentionRaw: opts.retentionRaw,
    retentionRollups: opts.retentionRollups,
    retentionMaxSize: opts.retentionMaxSize,
  };
}

function alertFlagsOf(opts: CollectOpts): AlertFlags {
  return {
    alertmanager: opts.alertmanager ?? [],
    webhook: opts.webhook ?? [],
    ...(opts.webhookSecretEnv === undefined ? {} : { webhookSecretEnv: opts.webhookSecretEnv }),
    ...(opts.webhookSecretFile === undefined ? {} : { webhookSecretFile: opts.webhookSecretFile }),
  };
}

/** Size of the database file plus its WAL, or undefined before it exists. */
export function databaseSize(path: string): number | undefined {
  let total: number | undefined;
  for (const p of [path, `${path}-wal`]) {
    try {
      total = (total ?? 0) + statSync(p).size;
    } catch {
      // not there (yet)
    }
  }
  return total;
}

function waitForAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * Checks what the collector itself does not (it sees neither the filter engine nor the
 * analysis): each cluster's connections filter and order_by in the server's dialect, and the
 * file's `thresholds` section. Exit 2 with the key and, for a filter, the caret display.
 */
async function checkAnalysisAndFilters(config: CollectorConfig, file: { path: string } | undefined): Promise<void> {
  if (config.thresholds !== undefined) {
    const { resolveThresholds } = await import('../../report/timeline/thresholds-schema.ts');
    try {
      resolveThresholds(config.thresholds);
    } catch (err) {
      if (err instanceof ThresholdError) throw new UsageError(`${file?.path ?? 'config'}: ${err.message}`);
      throw err;
    }
  }
  for (const c of config.clusters) {
    const where = `cluster ${c.name}: connections`;
    if (c.connections.filter !== '') {
      const checked = checkFilter(c.connections.filter, { resource: 'connections', dialect: 'server' });
      if (!checked.ok)
        throw new UsageError(
          `${where}.filter is not accepted by the cluster (server dialect): ${checked.error.render()}`,
        );
    }
    if (c.connections.orderBy !== '') {
      try {
        compileOrderBy(c.connections.orderBy, { resource: 'connections', dialect: 'server' });
      } catch (err) {
        if (err instanceof FilterError)
          throw new UsageError(`${where}.orderBy is not accepted by the cluster (server dialect): ${err.render()}`);
        throw err;
      }
    }
  }
}

/** Runs `collect` with parsed options; returns the exit code. */
export async function runCollect(opts: CollectOpts, g: GlobalOpts, io: CliIo): Promise<number> {
  const file = g.config === undefined ? undefined : readConfigFile(resolve(io.cwd, g.config));
  if (opts.simulate !== undefined && opts.simulate !== false) return runSimulated(opts, g, io, file);
  for (const [flag, v] of [
    ['--speed', opts.speed],
    ['--for', opts.for],
    ['--seed', opts.seed],
    ['--connections', opts.connections],
    ['--start', opts.start],
  ] as const) {
    if (v !== undefined) throw new UsageError(`${flag} needs --simulate`);
  }
  const { loadCollectorConfig } = await import('../../collector/config-load.ts');
  const config = loadCollectorConfig({
    file,
    env: io.env,
    flags: flagsOf(opts, g.cluster),
    alertFlags: alertFlagsOf(opts),
  });
  await checkAnalysisAndFilters(config, file);
  return record(config, g, io, opts.once === true, (collector) => {
    collector.start();
    return waitForAbort(collector.stopping);
  });
}

/** Opens the store, builds the collector, runs `body` (or every operation once), shuts down cleanly. */
async function record(
  config: CollectorConfig,
  g: GlobalOpts,
  io: CliIo,
  once: boolean,
  body: (collector: Collector) => Promise<unknown>,
  clock: RecordingClock = {},
): Promise<number> {
  const dbPath = dbOpenTarget(g.db, io.cwd);
  // what the start-up lines, logs and errors call the database: a URL without its password
  const shown = dbShown(g.db, io.cwd);
  const prefixOf = (name: string): string | undefined => config.clusters.find((c) => c.name === name)?.servicePrefix;
  const reporter: Reporter = redactingReporter(
    io.collectorReporter ??
      (config.logFormat === 'json'
        ? createJsonReporter(io.stderr, io.now, prefixOf, launcherFor(io))
        : createReporter(io.stderr, () => databaseSize(dbPath), prefixOf, launcherFor(io))),
    [g.db],
  );
  // the password file of a server --db: the flag (or its variable), else the config's database.passwordFile
  const openOptions = dbOpenOptions(g, io.cwd, config.databasePasswordFile);
  const passwordFile = openOptions.passwordFile;
  const openStore = (): RecordingStoreParts => {
    // retention works on the database the store has open (a new one if the file was replaced)
    let current: FlightrecDb | undefined;
    const writer = openRecordingStore(dbPath, {
      ...openOptions,
      keepRawAnswers: config.keepRawAnswers,
      onOpen: (db) => {
        current = db;
      },
    });
    return current === undefined
      ? { writer }
      : { writer, retentionStore: new RetentionPruner(() => current ?? writerLost(shown)) };
  };
  const outcome = await runRecording(
    {
      config,
      env: io.env,
      now: io.now,
      reporter,
      storeLabel: shown,
      dbSize: () => databaseSize(dbPath),
      owner: `${hostname()} pid ${process.pid} (${Math.random().toString(16).slice(2, 10)})`,
      signal: io.signal,
      ...(io.createCronTask === undefined ? {} : { createCronTask: io.createCronTask }),
      clock,
      startAlerts: () => liveAlertsOf(config, g, io, reporter, clock.nowNs),
      openStore,
      startRollUps: () => rollUpOf(config, dbPath, passwordFile, (line) => reporter.line(line)),
      // on a database server the polls are written in a thread of their own (its own connection),
      // so that one cluster's writes do not hold up the calls and decoding of the others
      ...(!engineFor(dbPath).writesFromOwnThread(dbPath)
        ? {}
        : {
            recordQueue: (hooks: RecordQueueHooks) =>
              new StoreThread(
                {
                  database: dbPath,
                  keepRawAnswers: config.keepRawAnswers,
                  maxHeldBytes: config.maxHeldBytes,
                  ...(passwordFile === undefined ? {} : { passwordFile }),
                },
                hooks,
              ),
          }),
    },
    once,
    body,
  );
  return outcome.pollsFailed ? EXIT.pollsFailed : EXIT.ok;
}

/**
 * The live alerts of a recording, when receivers are configured: the receivers are made (a
 * credential or file that cannot be read is exit 2 before the database is created) and the
 * live timeline starts in a worker at the first stored round, reading the database `--db` names.
 */
async function liveAlertsOf(
  config: CollectorConfig,
  g: GlobalOpts,
  io: CliIo,
  reporter: Reporter,
  nowNs: (() => bigint) | undefined,
): Promise<LiveAlerts | undefined> {
  if (config.alerts === undefined || config.alerts.receivers.length === 0) return undefined;
  const [{ startLiveAlerts }, { resolveThresholds }] = await Promise.all([
    import('../../alerts/index.ts'),
    import('../../report/timeline/thresholds-schema.ts'),
  ]);
  const { passwordFile } = dbOpenOptions(g, io.cwd, config.databasePasswordFile);
  return startLiveAlerts(config.alerts, {
    database: dbOpenTarget(g.db, io.cwd),
    ...(passwordFile === undefined ? {} : { passwordFile }),
    thresholds: resolveThresholds(config.thresholds),
    startNs: nowNs?.() ?? timestampFromMillis(io.now()),
    env: io.env,
    warn: (line) => reporter.line(`warning: ${line}`),
    line: (text) => reporter.line(text),
    now: io.now,
  });
}

/** The rollUp hook of retention: rollups computed in a worker thread (its own connection to `dbPath`). */
async function rollUpOf(
  config: CollectorConfig,
  dbPath: string,
  passwordFile: string | undefined,
  line: (text: string) => void,
): Promise<RollUpThread> {
  const [{ RollUpThread }, { resolveThresholds }] = await Promise.all([
    import('../../report/rollup/index.ts'),
    import('../../report/timeline/thresholds-schema.ts'),
  ]);
  return new RollUpThread({
    database: dbPath,
    ...(passwordFile === undefined ? {} : { passwordFile }),
    thresholds: resolveThresholds(config.thresholds),
    onDamage: line,
  });
}

function writerLost(path: string): never {
  throw new RuntimeError(`the database ${path} is no longer open`);
}

function positiveNumber(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`${flag}: must be a positive number, got ${JSON.stringify(v)}`);
  return n;
}

function wholeNumber(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^[0-9]+$/.test(v)) throw new UsageError(`${flag}: must be a whole number, got ${JSON.stringify(v)}`);
  return Number(v);
}

async function runSimulated(
  opts: CollectOpts,
  g: GlobalOpts,
  io: CliIo,
  file: { text: string; path: string } | undefined,
): Promise<number> {
  if (opts.baseUrl !== undefined) throw new UsageError('--base-url and --simulate exclude each other');
  const speed = positiveNumber('--speed', opts.speed);
  const forMs = opts.for === undefined ? undefined : parseDurationMs(opts.for);
  const seed = wholeNumber('--seed', opts.seed);
  const connections = wholeNumber('--connections', opts.connections);
  const rate = speed ?? (forMs === undefined ? 1 : Infinity);
  const startTime = simStart(opts.start, rate === 1 ? wallClockStart(io.now()) : DEFAULT_START_NS, io.now());
  const { startSimServer, simClock } = await import('../../sim/index.ts');
  const { loadCollectorConfig } = await import('../../collector/config-load.ts');
  const named = typeof opts.simulate === 'string' ? opts.simulate : undefined;
  // a file path is relative to the working directory; a bare word is a built-in scenario
  const scenario = named !== undefined && /[/\\.]/.test(named) ? resolve(io.cwd, named) : named;
  let sim: Awaited<ReturnType<typeof startSimServer>>;
  try {
    sim = await startSimServer({
      host: '127.0.0.1',
      port: 0,
      clock: 'manual',
      startTime,
      ...(seed === undefined ? {} : { seed }),
      ...(scenario === undefined ? {} : { scenario }),
      ...(connections === undefined ? {} : { connections }),
      ...(startTime === undefined ? {} : { startTime }),
    });
  } catch (err) {
    throw new UsageError(`--simulate: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    const described = sim.describe();
    const base = loadCollectorConfig({
      file,
      env: io.env,
      flags: { ...flagsOf(opts, g.cluster ?? 'sim'), baseUrl: sim.baseUrl },
      alertFlags: alertFlagsOf(opts),
      ignoreFileClusters: true,
    });
    const cluster = {
      ...base.clusters[0]!,
      shadowLinks: described.links.map((name) => ({
        name,
        topics: described.topics.filter((t) => t.link === name).map((t) => t.topic),
      })),
    };
    const config: CollectorConfig = { ...base, clusters: [cluster], jitterMs: 0 };
    const pace = Number.isFinite(rate) ? (simMs: number) => realSleep(simMs / rate, io.signal) : undefined;
    const { nowNs, nowMs, advanceTo, sleep } = simClock(sim, pace);
    const until = forMs === undefined ? Infinity : nowMs() + forMs;
    const simLine =
      `simulated cluster at ${sim.baseUrl}${scenario === undefined ? '' : ` playing ${scenario}`}; ` +
      `${forMs === undefined ? 'until interrupted' : `for ${opts.for} of simulated time`}` +
      `${Number.isFinite(rate) ? ` at ${rate}x` : ', as fast as possible'}`;
    io.stderr.write(
      config.logFormat === 'json' ? `${JSON.stringify(jsonLineOf(simLine, io.now()))}\n` : `${simLine}\n`,
    );
    await checkAnalysisAndFilters(config, file);
    return await record(
      config,
      g,
      io,
      opts.once === true,
      (collector) => collector.runVirtual(until, { nowMs, advanceTo, ...(pace === undefined ? {} : { pace }) }),
      {
        nowNs,
        sleep,
        // at a real pace (--speed) the simulated clock stands still during a call: time it for real
        ...(pace === undefined ? {} : { callClockNs: () => process.hrtime.bigint() }),
      },
    );
  } finally {
    await sim.close();
  }
}
