/**
 * `flightrec trends METRIC [--by KEY] [--since T] [--until T] [--top N]`: rates from cumulative
 * counters, connection counts, shadow and Iceberg lag over time, with sparklines.
 */
import type { Command } from 'commander';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { renderTrendsCsv, renderTrendsJson, trendsToJson } from '../../report/render/trends-json.ts';
import { renderTrendsMarkdown, renderTrendsText } from '../../report/render/trends-text.ts';
import { renderYaml } from '../../report/render/yaml.ts';
import { computeTrends, isMetricName, METRIC_NAMES, METRICS, type TrendsResult } from '../../report/trends/index.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { unknownNameMessage } from '../suggest.ts';
import { globalOptionsHelp, READ_CLUSTER, READ_DB } from './help.ts';
import { withHistory } from './history.ts';
import { chooseOutput } from './output-choice.ts';
import { timeOption } from './time-option.ts';
import { thresholdsFromConfig, type AnalysisGlobals } from './timeline.ts';

/** Output formats of `trends`. */
export const TRENDS_FORMATS = ['table', 'wide', 'json', 'csv', 'yaml', 'md'] as const;
type TrendsFormat = (typeof TRENDS_FORMATS)[number];

interface TrendsOpts {
  by?: string;
  since?: string;
  until?: string;
  top?: string;
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
    .option('--top <n>', 'only the N largest rows')
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
      if (opts.top !== undefined && !/^[1-9][0-9]*$/.test(opts.top)) {
        throw new UsageError(
          `invalid --top ${JSON.stringify(sanitizeForTerminal(opts.top))}: expected a whole number, at least 1`,
        );
      }
      const out = chooseOutput<TrendsFormat>(g, io, TRENDS_FORMATS);
      const since = timeOption('--since', opts.since, io);
      const until = timeOption('--until', opts.until, io);
      const thresholds = await thresholdsFromConfig(g, io);
      const result = withHistory(g, io, (reader, cluster) =>
        computeTrends(reader, {
          metric,
          by: opts.by,
          since,
          until,
          cluster,
          thresholds,
          top: opts.top === undefined ? undefined : Number(opts.top),
        }),
      );
      io.stdout.write(renderTrendsAs(result, out.format, out));
      done(EXIT.ok);
    });
}

function renderTrendsAs(
  r: TrendsResult,
  format: TrendsFormat,
  out: { color: boolean; width: number | undefined },
): string {
  switch (format) {
    case 'table':
    case 'wide':
      return renderTrendsText(r, { color: out.color, width: out.width, wide: format === 'wide' });
    case 'json':
      return renderTrendsJson(r);
    case 'csv':
      return renderTrendsCsv(r);
    case 'yaml':
      return renderYaml(trendsToJson(r));
    case 'md':
      return renderTrendsMarkdown(r);
  }
}
