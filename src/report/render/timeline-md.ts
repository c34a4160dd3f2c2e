/**
 * The timeline as Markdown, ready to paste into a postmortem: a summary, the events table,
 * the evidence of every warn/error event, and sparklines of the key series.
 */
import { formatHumanDuration } from '../../api/codec/duration.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import type { Timeline } from '../timeline/timeline.ts';
import { mdCode, mdText } from './markdown.ts';
import { durationText, endText, evidenceText, seriesLines, severityCounts, startText } from './timeline-common.ts';

const MARK: Readonly<Record<string, string>> = { error: '**error**', warn: 'warn', info: 'info' };

/** `-o md`. */
export function renderTimelineMarkdown(t: Timeline): string {
  const c = severityCounts(t.events);
  const out: string[] = [];
  out.push(`## Incident timeline${t.cluster !== undefined ? `: ${mdText(t.cluster)}` : ''}`, '');
  out.push(
    `- **Window:** ${formatTimestampShort(t.since)} → ${formatTimestampShort(t.until)} (${formatHumanDuration(t.until - t.since)})`,
    `- **Events:** ${t.events.length} (${c.error} error, ${c.warn} warn, ${c.info} info)`,
    `- **Polls:** ${t.polls.total} recorded, ${t.polls.failed} failed`,
    '',
  );
  if (t.events.length === 0) {
    out.push('_No events._', '');
  } else {
    out.push('| Start | End | Duration | Severity | Kind | Entity | What |', '|---|---|---:|---|---|---|---|');
    for (const e of t.events) {
      out.push(
        `| ${mdText(startText(e))} | ${mdText(endText(e))} | ${mdText(durationText(e, t.until))} | ${MARK[e.severity] ?? e.severity} | ${mdCode(e.kind)} | ${mdCode(e.entity)} | ${mdText(e.description)} |`,
      );
    }
    out.push('');
    const notable = t.events.filter((e) => e.severity !== 'info');
    if (notable.length > 0) {
      out.push('### Evidence', '');
      for (const e of notable)
        out.push(`- ${mdText(startText(e))} ${mdCode(e.kind)} ${mdCode(e.entity)}: ${mdText(evidenceText(e))}`);
      out.push('');
    }
  }
  const lines = seriesLines(t, 40);
  if (lines.length > 0) {
    out.push('### Key series', '', '| Series | Trend | Min | Max | Last |', '|---|---|---:|---:|---:|');
    for (const l of lines) {
      out.push(
        `| ${mdCode(l.name)} | ${l.spark.replace(/ /g, '\u2007')} | ${l.min} | ${l.max} | ${l.last ?? '-'} ${mdText(l.unit)} |`,
      );
    }
    out.push('');
  }
  return `${out.join('\n')}`;
}
