/**
 * The summary as a short plain-text block to paste into a chat (colour only on a terminal, no
 * table borders). Every cluster string is sanitised.
 */
import { formatHumanDuration } from '../../api/codec/duration.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { ChangeGroup, Summary } from '../summary.ts';
import { formatCount, formatSpan } from '../format-units.ts';
import { paint } from './color.ts';
import { staleNote } from './freshness.ts';
import { rollupLine } from './timeline-text.ts';

const MARK: Readonly<Record<string, string>> = { error: '[ERROR]', warn: '[WARN] ', info: '[info] ' };
const MAX_CHANGES = 12;

function clock(t: bigint): string {
  return formatTimestampShort(t).slice(11).replace(/Z$/, '');
}

/**
 * What "now" means in a summary: `now`, or, when the window ends where a recording that stopped
 * earlier ends, `at the end of the recording (T, 338d ago)`.
 */
export function nowWords(s: Pick<Summary, 'recordingEnd'>): string {
  const e = s.recordingEnd;
  return e === undefined
    ? 'now'
    : `at the end of the recording (${formatTimestampShort(e.at)}, ${formatSpan(e.ago)} ago)`;
}

/** `-o table`: the chat block. */
export function renderSummaryText(s: Summary, opts: { color: boolean } = { color: false }): string {
  const out: string[] = [];
  const cluster = s.cluster !== undefined ? ` · cluster ${sanitizeCell(s.cluster)}` : '';
  out.push(
    paint(
      `flightrec summary${cluster} · ${formatHumanDuration(s.until - s.since)} until ${formatTimestampShort(s.until)}`,
      'bold',
      opts.color,
    ),
  );
  if (s.rollups !== undefined) out.push(rollupLine(s.rollups));
  const when = nowWords(s);
  if (s.abnormal.length === 0) out.push(`Abnormal ${when}: nothing.`);
  else {
    out.push(`Abnormal ${when} (${s.abnormal.length}):`);
    for (const e of s.abnormal) {
      const mark = paint(MARK[e.severity] ?? e.severity, e.severity === 'error' ? 'error' : 'warn', opts.color);
      out.push(
        `  ${mark} ${sanitizeCell(e.description)} (since ${clock(e.start)}, ${formatHumanDuration(s.until - e.start)})`,
      );
    }
  }
  if (s.changes.length === 0) out.push('Changed in the window: nothing.');
  else {
    out.push(`Changed in the window (${s.eventCount} events):`);
    for (const c of s.changes.slice(0, MAX_CHANGES)) {
      const more = c.entities.length > 2 ? ` +${c.entities.length - 2} more` : '';
      const who = c.entities.slice(0, 2).map(sanitizeCell).join(', ');
      out.push(`  ${MARK[c.severity] ?? c.severity} ${c.kind} ×${c.count}: ${who}${more} (${span(c)})`);
    }
    if (s.changes.length > MAX_CHANGES) out.push(`  … and ${s.changes.length - MAX_CHANGES} more kinds`);
  }
  const figs = s.figures.map((f) => {
    const now = f.now === undefined ? '-' : formatCount(Math.round(f.now));
    const was =
      f.start === undefined || f.start === f.now
        ? ''
        : ` (was ${formatCount(Math.round(f.start))}, max ${formatCount(Math.round(f.max ?? 0))})`;
    return `${sanitizeCell(f.name)} ${now}${was}`;
  });
  figs.push(`polls ${s.polls.total}, ${s.polls.failed} failed`);
  out.push(`${s.recordingEnd === undefined ? 'Now' : 'At the end of the recording'}: ${figs.join(' · ')}`);
  const f = s.freshness;
  if (f !== undefined && f.observedAt !== undefined) {
    const stale = staleNote('the recording', f);
    out.push(
      stale === undefined
        ? `Observed: newest poll ${formatTimestampShort(f.observedAt)}`
        : paint(
            `Observed: newest poll ${formatTimestampShort(f.observedAt)}; ${stale.replace(/^the recording at \S+: /, '')}`,
            'warn',
            opts.color,
          ),
    );
  }
  return `${out.join('\n')}\n`;
}

/**
 * When a kind's changes happened: first start to latest end when all ended; while some are still
 * open, from the first start and how many are open (not to the window's end, which would read as
 * a time they were seen to end).
 */
function span(c: ChangeGroup): string {
  if (c.open === 0) return `${clock(c.first)}–${clock(c.last)}`;
  return `from ${clock(c.first)}, ${c.open === c.count ? 'still open' : `${c.open} of ${c.count} still open`}`;
}
