/**
 * `flightrec summary [--window 6h] [--until T]`: what is abnormal now and what changed in the
 * window, as a short block to paste into a chat, or as JSON.
 */
import type { Command } from 'commander';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { parseDurationArg } from '../../collector/time-args.ts';
import { renderSummaryJson, summaryToJson } from '../../report/render/summary-json.ts';
import { renderSummaryText } from '../../report/render/summary-text.ts';
import { renderYaml } from '../../report/render/yaml.ts';
import { acrossClusters, type AcrossClusters } from '../../report/across.ts';
import { isClusterGlob } from '../../report/cluster-match.ts';
import { renderSummaryAcrossText, summaryAcrossToJson } from '../../report/render/across.ts';
import { formatJson } from '../../report/render/json.ts';
import { DEFAULT_SUMMARY_WINDOW, defaultSummaryWindow, summarize, type Summary } from '../../report/summary.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { instantBefore } from '../../api/time-text.ts';
import type { PollRow } from '../../api/schema/resources.ts';
import { formatHumanDuration } from '../../api/codec/duration.ts';
import { pollTime } from '../../report/timeline/types.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { thresholdsFromConfig, type AnalysisGlobals } from './thresholds-config.ts';
import { globalOptionsHelp, READ_CLUSTER_GLOB, READ_DB } from './help.ts';
import { withClusterSet, withHistory } from './history.ts';
import { chooseOutput } from './output-choice.ts';
import { flagValue, timeOption } from './time-option.ts';

/** Output formats of `summary`. */
export const SUMMARY_FORMATS = ['table', 'json', 'yaml', 'md'] as const;
type SummaryFormat = (typeof SUMMARY_FORMATS)[number];

interface SummaryOpts {
  window?: string;
  until?: string;
}

/** The first and last poll times of a recording, or undefined when it has none. */
function recordedRange(polls: readonly PollRow[]): { first: bigint; last: bigint } | undefined {
  let first: bigint | undefined;
  let last: bigint | undefined;
  for (const p of polls) {
    const t = pollTime(p);
    if (first === undefined || t < first) first = t;
    if (last === undefined || t > last) last = t;
  }
  return first === undefined || last === undefined ? undefined : { first, last };
}

/** Registers `summary`. */
export function registerSummary(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('summary')
    .description('what is abnormal now and what changed in the window, short enough for a chat')
    .option(
      '--window <duration>',
      'how far back to look (30m, 6h, 1d); default 6h, or the whole recording when it ended before that',
    )
    .option('--until <time>', 'the end of the window, "now" for the summary (RFC 3339, now, -2h); default now')
    .addHelpText(
      'after',
      globalOptionsHelp({
        db: READ_DB,
        cluster: READ_CLUSTER_GLOB,
        config: 'its thresholds: section',
        output: SUMMARY_FORMATS,
        color: true,
      }),
    )
    .action(async (opts: SummaryOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<AnalysisGlobals>();
      const given = opts.window;
      const window =
        given === undefined ? DEFAULT_SUMMARY_WINDOW : flagValue('--window', () => parseDurationArg(given));
      if (window <= 0n) throw new UsageError('--window must be longer than zero');
      const out = chooseOutput<SummaryFormat>(g, io, SUMMARY_FORMATS);
      const until = timeOption('--until', opts.until ?? 'now', io) as bigint;
      const thresholds = await thresholdsFromConfig(g, io);
      if (g.cluster !== undefined && isClusterGlob(g.cluster)) {
        const parts = withClusterSet({ ...g, cluster: g.cluster }, io, (reader, clusters) =>
          acrossClusters(clusters, (cluster) => {
            const chosen =
              opts.window === undefined && opts.until === undefined
                ? defaultSummaryWindow(recordedRange(reader.polls({ cluster })), until)
                : { until, window, wholeRecording: false };
            if (chosen.wholeRecording) {
              io.stderr.write(
                `note: cluster ${sanitizeForTerminal(cluster)}: nothing was recorded in the last ${formatHumanDuration(DEFAULT_SUMMARY_WINDOW)}; summarising its whole recording\n`,
              );
            }
            return summarize(reader, {
              until: chosen.until,
              window: chosen.window,
              cluster,
              thresholds,
              wallClock: chosen.wholeRecording ? until : undefined,
            });
          }),
        );
        writeSummaryAcross(parts, out.format, out.color, io);
        done(EXIT.ok);
        return;
      }
      const summary = withHistory(g, io, (reader, cluster) => {
        let chosen: { until: bigint; window: bigint; wallClock?: bigint } = { until, window };
        if (opts.window === undefined && opts.until === undefined) {
          const w = defaultSummaryWindow(recordedRange(reader.polls({ cluster })), until);
          if (w.wholeRecording) {
            io.stderr.write(
              `note: nothing was recorded in the last ${formatHumanDuration(DEFAULT_SUMMARY_WINDOW)}; ` +
                `summarising the whole recording, ${formatTimestampShort(instantBefore(w.until, w.window))} to ${formatTimestampShort(w.until)} ` +
                '(choose with --window and --until)\n',
            );
          }
          chosen = w.wholeRecording ? { until: w.until, window: w.window, wallClock: until } : w;
        }
        return summarize(reader, { ...chosen, cluster, thresholds });
      });
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

/** Writes summaries of several clusters: a block per cluster (text, Markdown) or one document (JSON, YAML). */
function writeSummaryAcross(parts: AcrossClusters<Summary>, format: SummaryFormat, color: boolean, io: CliIo): void {
  switch (format) {
    case 'json':
      io.stdout.write(`${formatJson(summaryAcrossToJson(parts))}\n`);
      return;
    case 'yaml':
      io.stdout.write(renderYaml(summaryAcrossToJson(parts)));
      return;
    case 'md': {
      const text = renderSummaryAcrossText(parts, { color: false });
      const fence = '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((m) => m.length + 1)));
      io.stdout.write(`${fence}\n${text}${fence}\n`);
      return;
    }
    default:
      io.stdout.write(renderSummaryAcrossText(parts, { color }));
  }
}
