/**
 * `flightrec summary [--window 6h] [--until T]`: what is abnormal now and what changed in the
 * window, as a short block to paste into a chat, or as JSON.
 */
import type { Command } from 'commander';
import { parseDurationArg, TimeArgError } from '../../collector/time-args.ts';
import { renderSummaryJson, summaryToJson } from '../../report/render/summary-json.ts';
import { renderSummaryText } from '../../report/render/summary-text.ts';
import { renderYaml } from '../../report/render/yaml.ts';
import { summarize } from '../../report/summary.ts';
import type { TimelineSource } from '../../report/timeline/timeline.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { chooseOutput, timeOption, withHistory } from './query.ts';
import { thresholdsFromConfig, type AnalysisGlobals } from './timeline.ts';

/** Output formats of `summary`. */
export const SUMMARY_FORMATS = ['table', 'json', 'yaml', 'md'] as const;
type SummaryFormat = (typeof SUMMARY_FORMATS)[number];

interface SummaryOpts {
  window: string;
  until?: string;
}

/** Registers `summary`. */
export function registerSummary(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('summary')
    .description('what is abnormal now and what changed in the window, short enough for a chat')
    .option('--window <duration>', 'how far back to look (30m, 6h, 1d)', '6h')
    .option('--until <time>', 'the end of the window, "now" for the summary (RFC 3339, now, -2h); default now')
    .action((opts: SummaryOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<AnalysisGlobals>();
      let window: bigint;
      try {
        window = parseDurationArg(opts.window);
      } catch (err) {
        if (err instanceof TimeArgError) throw new UsageError(`--window: ${err.message}`);
        throw err;
      }
      if (window <= 0n) throw new UsageError('--window must be longer than zero');
      const out = chooseOutput<SummaryFormat>(g, io, SUMMARY_FORMATS);
      const until = timeOption('--until', opts.until ?? 'now', io) as bigint;
      const thresholds = thresholdsFromConfig(g, io);
      const summary = withHistory(g, io, (reader, cluster) => summarize(reader as unknown as TimelineSource, { until, window, cluster, thresholds }));
      switch (out.format) {
        case 'json':
          io.stdout.write(renderSummaryJson(summary));
          break;
        case 'yaml':
          io.stdout.write(renderYaml(summaryToJson(summary)));
          break;
        case 'md': {
          // a fence longer than any run of backticks inside, so cluster strings cannot close it
          const text = renderSummaryText(summary, { color: false });
          const fence = '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((m) => m.length + 1)));
          io.stdout.write(`${fence}\n${text}${fence}\n`);
          break;
        }
        default:
          io.stdout.write(renderSummaryText(summary, { color: out.color }));
      }
      done(EXIT.ok);
    });
}
