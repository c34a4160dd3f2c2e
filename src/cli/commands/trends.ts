/**
 * `flightrec trends METRIC [--by KEY] [--since T] [--until T] [--limit N]`: rates from cumulative
 * counters, connection counts, shadow and Iceberg lag over time, with sparklines. The tables show
 * the largest DEFAULT_TRENDS_ROWS rows unless told otherwise (and say how many were left out);
 * JSON, CSV and YAML carry every row unless `--limit` is given.
 */
import type { Command } from 'commander';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { renderTrendsCsv, renderTrendsJson, trendsToJson } from '../../report/render/trends-json.ts';
import { renderTrendsMarkdown, renderTrendsText, type SparkScale } from '../../report/render/trends-text.ts';
import { renderYaml } from '../../report/render/yaml.ts';
import { computeTrends, isMetricName, METRIC_NAMES, METRICS, type TrendsResult } from '../../report/trends/index.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { unknownNameMessage } from '../suggest.ts';
import { globalOptionsHelp, READ_CLUSTER, READ_DB } from './help.ts';
import { withHistory } from './history.ts';
import { chooseOutput } from './output-choice.ts';
import { timeOption } from './time-option.ts';
import { thresholdsFromConfig, type AnalysisGlobals } from './thresholds-config.ts';

/** Output formats of `trends`. */
export const TRENDS_FORMATS = ['table', 'wide', 'json', 'csv', 'yaml', 'md'] as const;
type TrendsFormat = (typeof TRENDS_FORMATS)[number];

/** Rows a table (table, wide, md) shows when no --limit is given: the largest first. */
export const DEFAULT_TRENDS_ROWS = 50;

interface TrendsOpts {
  by?: string;
  since?: string;
  until?: string;
  top?: string;
  limit?: string;
  scale?: string;
}

/**
 * The rows to keep: `--limit N` (0: all) or its older name `--top N`, else DEFAULT_TRENDS_ROWS for
 * a table and every row for a document. `defaulted` when the default applies.
 */
export function trendsRowLimit(
  opts: { top?: string; limit?: string },
  format: string,
): { limit: number | undefined; defaulted: boolean } {
  if (opts.top !== undefined && !/^[1-9][0-9]*$/.test(opts.top)) {
    throw new UsageError(
      `invalid --top ${JSON.stringify(sanitizeForTerminal(opts.top))}: expected a whole number, at least 1`,
    );
  }
  if (opts.limit !== undefined && !/^(0|[1-9][0-9]{0,8})$/.test(opts.limit)) {
    throw new UsageError(
      `invalid --limit ${JSON.stringify(sanitizeForTerminal(opts.limit))}: expected a whole number (0 for every row)`,
    );
  }
  if (opts.top !== undefined && opts.limit !== undefined) throw new UsageError('use either --limit or --top, not both');
  const given = opts.limit ?? opts.top;
  if (given !== undefined) return { limit: given === '0' ? undefined : Number(given), defaulted: false };
  const table = format === 'table' || format === 'wide' || format === 'md';
  return { limit: table ? DEFAULT_TRENDS_ROWS : undefined, defaulted: table };
}

/** Registers `trends`. */
export function registerTrends(program: Command, io: CliIo, done: (code: number) => void): void {
  const metrics = METRIC_NAMES.map((m) => `${m} (by ${METRICS[m].keys.join('|')})`).join('; ');
  program
    .command('trends')
    .description('rates, counts and lags over time, per connection or rolled up, with sparklines')
    .argument('<metric>', metrics)
    .option('--by <key>', "grouping key (default: the metric's first)")
    .option('--since <time>', 'from TIME (RFC 3339, now, -2h, 30m); default the first recorded poll')
    .option('--until <time>', 'up to TIME; default the last recorded poll')
    .option(
      '--limit <n>',
      `at most N rows, the largest first; 0 for every row (default: ${DEFAULT_TRENDS_ROWS} in table, wide and md, every row in json, csv and yaml)`,
    )
    .option('--top <n>', 'the same as --limit N (at least 1)')
    .option(
      '--scale <how>',
      'sparkline scale: row (each row on its own min..max, shown in SCALE) or shared (one scale for every row, to compare them)',
      'row',
    )
    .addHelpText(
      'after',
      globalOptionsHelp({
        db: READ_DB,
        cluster: READ_CLUSTER,
        config: 'its thresholds: section',
        output: TRENDS_FORMATS,
        color: true,
      }),
    )
    .action(async (metric: string, opts: TrendsOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<AnalysisGlobals>();
      if (!isMetricName(metric)) {
        throw new UsageError(unknownNameMessage('metric', metric, METRIC_NAMES));
      }
      const keys: readonly string[] = METRICS[metric].keys;
      if (opts.by !== undefined && !keys.includes(opts.by))
        throw new UsageError(`--by: ${unknownNameMessage(`key of ${metric}`, opts.by, keys)}`);
      if (opts.scale !== 'row' && opts.scale !== 'shared')
        throw new UsageError(
          `invalid --scale ${JSON.stringify(sanitizeForTerminal(String(opts.scale)))}: expected row or shared`,
        );
      const scale = opts.scale;
      const out = chooseOutput<TrendsFormat>(g, io, TRENDS_FORMATS);
      const rows = trendsRowLimit(opts, out.format);
      const since = timeOption('--since', opts.since, io);
      const until = timeOption('--until', opts.until, io);
      if (since !== undefined && until !== undefined && since > until)
        throw new UsageError('--since must not be after --until');
      const thresholds = await thresholdsFromConfig(g, io);
      const result = withHistory(g, io, (reader, cluster) =>
        computeTrends(reader, {
          metric,
          by: opts.by,
          since,
          until,
          cluster,
          thresholds,
          top: rows.limit,
        }),
      );
      io.stdout.write(renderTrendsAs(result, out.format, { ...out, scale }));
      const left = result.total - result.rows.length;
      if (rows.defaulted && left > 0)
        io.stderr.write(
          `note: ${left} of ${result.total} rows left out (the ${result.rows.length} largest shown); --limit N for more, --limit 0 for every row\n`,
        );
      done(EXIT.ok);
    });
}

function renderTrendsAs(
  r: TrendsResult,
  format: TrendsFormat,
  out: { color: boolean; width: number | undefined; scale: SparkScale },
): string {
  switch (format) {
    case 'table':
    case 'wide':
      return renderTrendsText(r, { color: out.color, width: out.width, wide: format === 'wide', scale: out.scale });
    case 'json':
      return renderTrendsJson(r);
    case 'csv':
      return renderTrendsCsv(r);
    case 'yaml':
      return renderYaml(trendsToJson(r));
    case 'md':
      return renderTrendsMarkdown(r, out.scale);
  }
}
