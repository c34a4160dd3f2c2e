/**
 * `flightrec timeline [--since T] [--until T] [--for KIND/NAME] [--min-severity S]`: the incident
 * timeline of the recorded history, as text, Markdown, JSON, ndjson, YAML, HTML or Grafana
 * annotations. (The thresholds from the config file: thresholds-config.ts, re-exported here.)
 */
import type { Command } from 'commander';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { acrossClusters, type AcrossClusters } from '../../report/across.ts';
import { isClusterGlob } from '../../report/cluster-match.ts';
import {
  renderTimelineAcrossAnnotations,
  renderTimelineAcrossHtml,
  renderTimelineAcrossMarkdown,
  renderTimelineAcrossNdjson,
  renderTimelineAcrossText,
  timelineAcrossToJson,
} from '../../report/render/across.ts';
import { formatJson } from '../../report/render/json.ts';
import { renderTimelineHtml } from '../../report/render/timeline-html.ts';
import {
  renderTimelineAnnotations,
  renderTimelineJson,
  renderTimelineNdjson,
  timelineToJson,
} from '../../report/render/timeline-json.ts';
import { renderTimelineMarkdown } from '../../report/render/timeline-md.ts';
import { renderTimelineText } from '../../report/render/timeline-text.ts';
import { renderYaml } from '../../report/render/yaml.ts';
import { ENTITY_KINDS, nearestNames, recordedNames, splitEntity } from '../../report/timeline/entity-names.ts';
import { buildTimeline, type Timeline, type TimelineSource } from '../../report/timeline/timeline.ts';
import { isSeverity, SEVERITIES, type Severity } from '../../report/timeline/types.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { unknownNameMessage } from '../suggest.ts';
import { globalOptionsHelp, READ_CLUSTER_GLOB, READ_DB } from './help.ts';
import { withClusterSet, withHistory } from './history.ts';
import { chooseOutput } from './output-choice.ts';
import { thresholdsFromConfig, type AnalysisGlobals } from './thresholds-config.ts';
import { timeOption } from './time-option.ts';

/** The config file's thresholds, for the commands that import them from here (thresholds-config.ts). */
export { thresholdsFromConfig, type AnalysisGlobals };

/** Output formats of `timeline`. */
export const TIMELINE_FORMATS = ['table', 'wide', 'json', 'ndjson', 'yaml', 'md', 'html', 'annotations'] as const;
type TimelineFormat = (typeof TIMELINE_FORMATS)[number];

interface TimelineOpts {
  since?: string;
  until?: string;
  for?: string;
  minSeverity: string;
}

/** Registers `timeline`. */
export function registerTimeline(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('timeline')
    .description('the incident timeline: intervals and point events with kind, severity, entity and evidence')
    .option('--since <time>', 'from TIME (RFC 3339, now, -2h, 30m); default the first recorded poll')
    .option('--until <time>', 'up to TIME; default the last recorded poll')
    .option(
      '--for <kind/name>',
      'only events about this entity or its children (broker/2, link/dr-primary, client/orders-7)',
    )
    .option('--min-severity <severity>', `lowest severity shown: ${SEVERITIES.join(', ')}`, 'info')
    .addHelpText(
      'after',
      globalOptionsHelp({
        db: READ_DB,
        cluster: READ_CLUSTER_GLOB,
        config: 'its thresholds: section',
        output: TIMELINE_FORMATS,
        color: true,
      }),
    )
    .action(async (opts: TimelineOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<AnalysisGlobals>();
      if (!isSeverity(opts.minSeverity)) {
        throw new UsageError(`--min-severity: ${unknownNameMessage('severity', opts.minSeverity, SEVERITIES)}`);
      }
      if (opts.for !== undefined && !/^[a-z-]+\/./.test(opts.for)) {
        throw new UsageError(
          `invalid --for ${JSON.stringify(sanitizeForTerminal(opts.for))}: expected KIND/NAME, e.g. broker/2 or link/dr-primary`,
        );
      }
      if (opts.for !== undefined && !(ENTITY_KINDS as readonly string[]).includes(splitEntity(opts.for).kind)) {
        throw new UsageError(
          `invalid --for ${JSON.stringify(sanitizeForTerminal(opts.for))}: unknown kind ${JSON.stringify(sanitizeForTerminal(splitEntity(opts.for).kind))}; expected one of ${ENTITY_KINDS.join(', ')}`,
        );
      }
      const out = chooseOutput<TimelineFormat>(g, io, TIMELINE_FORMATS);
      const since = timeOption('--since', opts.since, io);
      const until = timeOption('--until', opts.until, io);
      if (since !== undefined && until !== undefined && until < since)
        throw new UsageError('--since must not be after --until');
      const thresholds = await thresholdsFromConfig(g, io);
      if (g.cluster !== undefined && isClusterGlob(g.cluster)) {
        const minSeverity = opts.minSeverity as Severity;
        const parts = withClusterSet({ ...g, cluster: g.cluster }, io, (reader, clusters) => {
          const got = acrossClusters(clusters, (cluster) =>
            buildTimeline(reader, { since, until, cluster, thresholds, for: opts.for, minSeverity }),
          );
          if (opts.for !== undefined && got.every((p) => p.result.events.length === 0)) {
            const known = clusters.some(
              (cluster) =>
                recordedNames(reader, opts.for!, { cluster, since: -(2n ** 63n), until: 2n ** 63n - 1n }).found,
            );
            if (!known) requireKnownEntity(reader, opts.for, clusters[0], got[0]!.result);
          }
          return got;
        });
        io.stdout.write(renderTimelineAcrossAs(parts, out.format, out));
        done(EXIT.ok);
        return;
      }
      const timeline = withHistory(g, io, (reader, cluster) => {
        const minSeverity = opts.minSeverity as Severity;
        const t = buildTimeline(reader, { since, until, cluster, thresholds, for: opts.for, minSeverity });
        if (opts.for !== undefined) requireKnownEntity(reader, opts.for, cluster, t);
        return t;
      });
      io.stdout.write(renderTimelineAs(timeline, out.format, out));
      done(EXIT.ok);
    });
}

/** Refuses (exit 2) an entity the recording never saw, naming the nearest known ones. */
function requireKnownEntity(source: TimelineSource, target: string, cluster: string | undefined, t: Timeline): void {
  if (t.events.length > 0) return;
  const known = recordedNames(source, target, { cluster, since: -(2n ** 63n), until: 2n ** 63n - 1n });
  if (known.found) return;
  const near = nearestNames(target, known.names);
  const { kind } = splitEntity(target);
  const hint =
    near.length > 0
      ? `; nearest known: ${near.map(sanitizeForTerminal).join(', ')}`
      : known.names.length === 0
        ? `; no ${kind} is recorded`
        : '';
  throw new UsageError(`--for ${JSON.stringify(sanitizeForTerminal(target))}: no such entity in the recording${hint}`);
}

function renderTimelineAcrossAs(
  parts: AcrossClusters<Timeline>,
  format: TimelineFormat,
  out: { color: boolean; width: number | undefined },
): string {
  switch (format) {
    case 'table':
    case 'wide':
      return renderTimelineAcrossText(parts, { color: out.color, width: out.width, wide: format === 'wide' });
    case 'json':
      return `${formatJson(timelineAcrossToJson(parts))}\n`;
    case 'ndjson':
      return renderTimelineAcrossNdjson(parts);
    case 'yaml':
      return renderYaml(timelineAcrossToJson(parts));
    case 'md':
      return renderTimelineAcrossMarkdown(parts);
    case 'html':
      return renderTimelineAcrossHtml(parts);
    case 'annotations':
      return renderTimelineAcrossAnnotations(parts);
  }
}

function renderTimelineAs(
  t: ReturnType<typeof buildTimeline>,
  format: TimelineFormat,
  out: { color: boolean; width: number | undefined },
): string {
  switch (format) {
    case 'table':
    case 'wide':
      return renderTimelineText(t, { color: out.color, width: out.width, wide: format === 'wide' });
    case 'json':
      return renderTimelineJson(t);
    case 'ndjson':
      return renderTimelineNdjson(t);
    case 'yaml':
      return renderYaml(timelineToJson(t));
    case 'md':
      return renderTimelineMarkdown(t);
    case 'html':
      return renderTimelineHtml(t);
    case 'annotations':
      return renderTimelineAnnotations(t);
  }
}
