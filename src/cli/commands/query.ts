/**
 * `flightrec query RESOURCE`: the state as of `--at`, or every sample in `--since/--until`,
 * filtered (`--filter`, `--dialect`), ordered (`--order-by`) and limited (`--limit`), in any
 * output format. Also the helpers `diff` shares: output and colour choice, time arguments,
 * opening the history read-only and picking the cluster.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { isResourceName, RESOURCE_NAMES, type ResourceName } from '../../api/schema/resources.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { parseTimeArg, TimeArgError } from '../../collector/time-args.ts';
import { CorruptDataError, createHistoryReader, DatabaseOpenError, DatabaseVersionError, HistoryQueryError, openDatabase, type FlightrecDb } from '../../db/index.ts';
import { FilterError, type Dialect } from '../../filter/index.ts';
import {
  QUERY_FORMATS,
  queryNote,
  QueryOptionsError,
  renderQuery,
  runQuery,
  staleNote,
  type QueryFormat,
  type ReportReader,
} from '../../report/index.ts';
import { EXIT, RuntimeError, UsageError, type CliIo } from '../context.ts';
import { unknownNameMessage } from '../suggest.ts';
import { requireDatabase } from './missing-db.ts';
import { globalOptionsHelp, READ_CLUSTER, READ_DB } from './help.ts';

/** The global options a report command reads. */
interface GlobalOpts {
  db: string;
  cluster?: string;
  output?: string;
  color?: boolean;
}

/** How a report command writes: the format asked for (or `table`), colour, terminal width. */
export interface OutputChoice<F extends string> {
  readonly format: F;
  readonly color: boolean;
  readonly width: number | undefined;
}

/** Picks the output format among `allowed` (default `table`) and whether colour is allowed. */
export function chooseOutput<F extends string>(g: { output?: string; color?: boolean }, io: CliIo, allowed: readonly F[]): OutputChoice<F> {
  const format = (g.output ?? 'table') as F;
  if (!allowed.includes(format)) {
    throw new UsageError(`invalid --output ${JSON.stringify(g.output)}: expected one of ${allowed.join(', ')}`);
  }
  const env = io.env;
  const color =
    io.stdout.isTTY === true &&
    g.color !== false &&
    (env.NO_COLOR === undefined || env.NO_COLOR === '') &&
    env.FORCE_COLOR !== '0' &&
    env.TERM !== 'dumb';
  const width = io.stdout.isTTY === true && io.stdout.columns !== undefined && io.stdout.columns > 0 ? io.stdout.columns : undefined;
  return { format, color, width };
}

/** Parses a time option; a bad value is a usage error naming the flag. */
export function timeOption(flag: string, text: string | undefined, io: CliIo): bigint | undefined {
  if (text === undefined) return undefined;
  try {
    return parseTimeArg(text, io.now());
  } catch (err) {
    if (err instanceof TimeArgError) throw new UsageError(`${flag}: ${err.message}`);
    throw err;
  }
}

/** Opens the history read-only; a failure is a RuntimeError whose message says what is wrong with the file. */
export function openHistoryReadOnly(path: string, typed?: { given: string; cwd: string }): FlightrecDb {
  if (typed !== undefined) requireDatabase(path, typed.given, typed.cwd);
  try {
    return openDatabase(path, { readonly: true });
  } catch (err) {
    // the store's own errors already name the file and the cause
    if (err instanceof DatabaseOpenError || err instanceof DatabaseVersionError) throw new RuntimeError(err.message);
    throw new RuntimeError(`cannot open the history database: ${(err as Error).message}`);
  }
}

/** Opens the history read-only, resolves the cluster, runs `fn` and closes the database. */
export function withHistory<T>(g: GlobalOpts, io: CliIo, fn: (reader: ReportReader, cluster: string | undefined) => T): T {
  const path = resolve(io.cwd, g.db);
  const db = openHistoryReadOnly(path, { given: g.db, cwd: io.cwd });
  try {
    const reader = createHistoryReader(db);
    const clusters = reader.clusters();
    let cluster = g.cluster;
    if (cluster !== undefined && clusters.length > 0 && !clusters.includes(cluster)) {
      throw new UsageError(`no cluster ${JSON.stringify(cluster)} in ${path}; recorded: ${clusters.join(', ')}`);
    }
    if (cluster === undefined && clusters.length > 1) {
      throw new UsageError(`${path} holds several clusters (${clusters.join(', ')}): choose one with --cluster`);
    }
    cluster ??= clusters[0];
    return fn(reader, cluster);
  } catch (err) {
    if (err instanceof HistoryQueryError || err instanceof CorruptDataError) throw new RuntimeError(err.message);
    throw err;
  } finally {
    db.close();
  }
}

/** Writes a filter or order_by error with its caret display; exit 2. */
export function reportFilterError(err: FilterError, io: CliIo, done: (code: number) => void): void {
  io.stderr.write(`flightrec: ${err.render()}\n`);
  done(EXIT.usage);
}

interface QueryOpts {
  at?: string;
  since?: string;
  until?: string;
  filter?: string;
  orderBy?: string;
  dialect: string;
  limit?: string;
}

function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`invalid --limit ${JSON.stringify(text)}: expected a whole number`);
  return Number(text);
}

/** Registers `query`. */
export function registerQuery(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('query')
    .description('the state of a resource as of an instant, or every sample in a time range')
    .argument('<resource>', `one of ${RESOURCE_NAMES.join(', ')}`)
    .option('--at <time>', 'state as of TIME (RFC 3339, now, -2h, 30m); default now')
    .option('--since <time>', 'every sample from TIME on')
    .option('--until <time>', 'every sample up to TIME (default now, with --since)')
    .option('--filter <expr>', 'AIP-160 filter over the resource fields')
    .option('--order-by <expr>', 'AIP-132 order_by (default: the resource key; samples by time)')
    .option('--dialect <dialect>', 'extended (full AIP-160) or server (exactly what the cluster accepts)', 'extended')
    .option('--limit <n>', 'at most N rows')
    .addHelpText('after', globalOptionsHelp({ db: READ_DB, cluster: READ_CLUSTER, output: QUERY_FORMATS, color: true }))
    .action((resource: string, opts: QueryOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts>();
      try {
        done(runQueryCommand(resource, opts, g, io));
      } catch (err) {
        if (err instanceof FilterError) return reportFilterError(err, io, done);
        if (err instanceof QueryOptionsError) throw new UsageError(err.message);
        throw err;
      }
    });
}

function runQueryCommand(resource: string, opts: QueryOpts, g: GlobalOpts, io: CliIo): number {
  if (!isResourceName(resource)) {
    throw new UsageError(unknownNameMessage('resource', resource, RESOURCE_NAMES));
  }
  if (opts.dialect !== 'extended' && opts.dialect !== 'server') {
    throw new UsageError(`invalid --dialect ${JSON.stringify(sanitizeForTerminal(opts.dialect))}: expected extended or server`);
  }
  const out = chooseOutput<QueryFormat>(g, io, QUERY_FORMATS);
  const limit = parseLimit(opts.limit);
  const ranged = opts.since !== undefined || opts.until !== undefined;
  if (ranged && opts.at !== undefined) throw new UsageError('use either --at or --since/--until, not both');
  if (opts.until !== undefined && opts.since === undefined) throw new UsageError('--until needs --since');
  const at = ranged ? undefined : (timeOption('--at', opts.at ?? 'now', io) as bigint);
  const since = timeOption('--since', opts.since, io);
  const until = ranged ? timeOption('--until', opts.until ?? 'now', io) : undefined;
  const result = withHistory(g, io, (reader, cluster) =>
    runQuery(reader, {
      resource: resource as ResourceName,
      at,
      since,
      until,
      filter: opts.filter,
      dialect: opts.dialect as Dialect,
      orderBy: opts.orderBy,
      limit,
      cluster,
    }),
  );
  io.stdout.write(renderQuery(result, out.format, out));
  const unobserved = result.mode === 'at' && result.resource !== 'polls' && (result.poll === undefined || (result.failures ?? 0) > 0);
  // JSON and YAML carry the observation time and staleness in the document; other formats get them on stderr
  const documented = out.format === 'json' || out.format === 'yaml';
  const asOf = result.mode === 'at' && result.resource !== 'polls' && !documented;
  if (asOf || unobserved || result.rows.length < result.total || result.total === 0) {
    io.stderr.write(`${unobserved ? 'warning' : 'note'}: ${queryNote(result)}\n`);
  }
  const stale = result.freshness === undefined || documented || result.poll === undefined ? undefined : staleNote(result.resource, result.freshness);
  if (stale !== undefined) io.stderr.write(`warning: ${stale}\n`);
  return EXIT.ok;
}
