/**
 * `flightrec query RESOURCE`: the state as of `--at`, or every sample in `--since/--until`,
 * filtered (`--filter`, `--dialect`), ordered (`--order-by`) and limited (`--limit`), in any
 * output format.
 */
import type { Command } from 'commander';
import type { OperationName } from '../../api/schema/operations.ts';
import { isResourceName, RESOURCE_NAMES, type ResourceName } from '../../api/schema/resources.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { compileFilter, compileOrderBy, type Dialect } from '../../filter/index.ts';
import { acrossClusters } from '../../report/across.ts';
import { isClusterGlob } from '../../report/cluster-match.ts';
import {
  QUERY_FORMATS,
  queryNote,
  renderQueryChunks,
  runQuery,
  sourceProblem,
  staleNote,
  type QueryFormat,
  type QueryResult,
} from '../../report/index.ts';
import { renderQueryAcross } from '../../report/render/across.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { unknownNameMessage } from '../suggest.ts';
import { globalOptionsHelp, READ_CLUSTER_GLOB, READ_DB } from './help.ts';
import { withClusterSet, withHistory, type HistoryGlobals } from './history.ts';
import { chooseOutput } from './output-choice.ts';
import { timeOption } from './time-option.ts';
import { recordedSpan, spanText } from './recorded-span.ts';
import { writeFilterWarnings } from './filter-warnings.ts';

interface QueryOpts {
  at?: string;
  since?: string;
  until?: string;
  filter?: string;
  orderBy?: string;
  dialect: string;
  limit?: string;
  source?: string;
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
    .option(
      '--source <operation>',
      'only the raw samples of this operation (shadow topics and partitions: GetShadowTopic, ListShadowTopics or GetShadowLink; default: one sample per entity per round, the most detailed)',
    )
    .addHelpText(
      'after',
      globalOptionsHelp({ db: READ_DB, cluster: READ_CLUSTER_GLOB, output: QUERY_FORMATS, color: true }),
    )
    .action((resource: string, opts: QueryOpts, cmd: Command) => {
      done(runQueryCommand(resource, opts, cmd.optsWithGlobals<HistoryGlobals>(), io));
    });
}

function runQueryCommand(resource: string, opts: QueryOpts, g: HistoryGlobals, io: CliIo): number {
  if (!isResourceName(resource)) {
    throw new UsageError(unknownNameMessage('resource', resource, RESOURCE_NAMES));
  }
  if (opts.dialect !== 'extended' && opts.dialect !== 'server') {
    throw new UsageError(
      `invalid --dialect ${JSON.stringify(sanitizeForTerminal(opts.dialect))}: expected extended or server`,
    );
  }
  const out = chooseOutput<QueryFormat>(g, io, QUERY_FORMATS);
  const limit = parseLimit(opts.limit);
  const ranged = opts.since !== undefined || opts.until !== undefined;
  if (ranged && opts.at !== undefined) throw new UsageError('use either --at or --since/--until, not both');
  if (opts.until !== undefined && opts.since === undefined) throw new UsageError('--until needs --since');
  const at = ranged ? undefined : (timeOption('--at', opts.at ?? 'now', io) as bigint);
  const since = timeOption('--since', opts.since, io);
  const until = ranged ? timeOption('--until', opts.until ?? 'now', io) : undefined;
  // every argument is checked before the database is opened (a filter error shows its caret)
  if (since !== undefined && until !== undefined && since > until) throw new UsageError('--since is after --until');
  const checked = compileFilter(opts.filter ?? '', {
    resource: resource as ResourceName,
    dialect: opts.dialect as Dialect,
  });
  writeFilterWarnings(opts.filter ?? '', checked.warnings, io);
  compileOrderBy(opts.orderBy ?? '', { resource: resource as ResourceName, dialect: opts.dialect as Dialect });
  const source = opts.source;
  const problem = source === undefined ? undefined : sourceProblem(resource, source);
  if (problem !== undefined) throw new UsageError(`invalid --source: ${sanitizeForTerminal(problem)}`);
  const queryOpts = {
    resource: resource as ResourceName,
    at,
    since,
    until,
    filter: opts.filter,
    dialect: opts.dialect as Dialect,
    orderBy: opts.orderBy,
    limit,
    source: source as OperationName | undefined,
  };
  if (g.cluster !== undefined && isClusterGlob(g.cluster)) {
    const parts = withClusterSet({ ...g, cluster: g.cluster }, io, (reader, clusters) =>
      acrossClusters(clusters, (cluster) => runQuery(reader, { ...queryOpts, cluster })),
    );
    io.stdout.write(renderQueryAcross(parts, out.format, out));
    for (const p of parts) writeQueryNotes(p.result, out.format, io, `cluster ${sanitizeForTerminal(p.cluster)}: `);
    return EXIT.ok;
  }
  const { result, span } = withHistory(g, io, (reader, cluster) => {
    const r = runQuery(reader, { ...queryOpts, cluster });
    // an instant nothing answered for: where the recording is, to pick one that was observed
    const unobserved = r.mode === 'at' && r.resource !== 'polls' && r.poll === undefined;
    return { result: r, span: unobserved ? spanText(recordedSpan(reader, cluster)) : undefined };
  });
  // a chunk at a time: no one long string to hold and convert (render/index.ts)
  for (const chunk of renderQueryChunks(result, out.format, out)) io.stdout.write(chunk);
  writeQueryNotes(result, out.format, io, '', span);
  return EXIT.ok;
}

/** The notes of a query on stderr (what it answered from, staleness), each line after `prefix`. */
function writeQueryNotes(result: QueryResult, format: QueryFormat, io: CliIo, prefix: string, span?: string): void {
  const unobserved =
    result.mode === 'at' && result.resource !== 'polls' && (result.poll === undefined || (result.failures ?? 0) > 0);
  // JSON and YAML carry the observation time and staleness in the document; other formats get them on stderr
  const documented = format === 'json' || format === 'yaml';
  const asOf = result.mode === 'at' && result.resource !== 'polls' && !documented;
  if (asOf || unobserved || result.rows.length < result.total || result.total === 0) {
    io.stderr.write(
      `${unobserved ? 'warning' : 'note'}: ${prefix}${queryNote(result)}${span === undefined ? '' : `; ${span}`}\n`,
    );
  }
  const stale =
    result.freshness === undefined || documented || result.poll === undefined
      ? undefined
      : staleNote(result.resource, result.freshness);
  if (stale !== undefined) io.stderr.write(`warning: ${prefix}${stale}\n`);
}
