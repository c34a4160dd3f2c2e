/**
 * The timeline as one self-contained HTML file: no script, no external asset. An SVG interval
 * chart (one lane per entity, tooltips through SVG titles), SVG sparklines of the key series and
 * the table of every event with its evidence. Every string is sanitised and HTML-escaped.
 */
import { formatHumanDuration } from '../../api/codec/duration.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import type { Timeline } from '../timeline/timeline.ts';
import type { TimelineEvent } from '../timeline/types.ts';
import { durationText, endText, evidenceText, seriesLines, severityCounts, startText } from './timeline-common.ts';

/** Escapes text for HTML content and attribute values (after making control characters visible). */
export function escapeHtml(text: string): string {
  return sanitizeForTerminal(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const COLOR: Readonly<Record<string, string>> = { error: '#c62828', warn: '#ef8f00', info: '#78909c' };
const CHART_WIDTH = 900;
const LABEL_WIDTH = 300;
const LANE = 18;
const MAX_LANES = 300;

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}.meta{color:#555}
table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
td.num{text-align:right}.sev-error{color:#c62828;font-weight:600}.sev-warn{color:#b26a00}.sev-info{color:#607d8b}
code{font-size:12px}.ev{color:#555;font-size:12px}svg text{font:11px system-ui,sans-serif;fill:#333}`;

function x(t: bigint, since: bigint, until: bigint): number {
  const span = until - since;
  if (span <= 0n) return LABEL_WIDTH;
  const f = Number(t - since) / Number(span);
  return LABEL_WIDTH + Math.max(0, Math.min(1, f)) * CHART_WIDTH;
}

function tooltip(e: TimelineEvent, until: bigint): string {
  const when = e.type === 'point' ? startText(e) : `${startText(e)} → ${endText(e)} (${durationText(e, until)})`;
  return escapeHtml(`${e.severity} ${e.kind} ${e.entity}\n${when}\n${e.description}\n${evidenceText(e)}`);
}

function chart(t: Timeline): string {
  const lanes: string[] = [];
  const byLane = new Map<string, TimelineEvent[]>();
  for (const e of t.events) {
    let list = byLane.get(e.entity);
    if (list === undefined) {
      if (lanes.length >= MAX_LANES) continue;
      lanes.push(e.entity);
      byLane.set(e.entity, (list = []));
    }
    list.push(e);
  }
  const height = lanes.length * LANE + 30;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${LABEL_WIDTH + CHART_WIDTH + 10}" height="${height}" role="img" aria-label="interval chart">`,
  ];
  for (let i = 0; i <= 4; i++) {
    const tick = t.since + ((t.until - t.since) * BigInt(i)) / 4n;
    const tx = x(tick, t.since, t.until);
    parts.push(`<line x1="${tx.toFixed(1)}" y1="0" x2="${tx.toFixed(1)}" y2="${height - 20}" stroke="#eee"/>`);
    parts.push(
      `<text x="${tx.toFixed(1)}" y="${height - 6}" text-anchor="${i === 0 ? 'start' : i === 4 ? 'end' : 'middle'}">${escapeHtml(formatTimestampShort(tick))}</text>`,
    );
  }
  lanes.forEach((lane, i) => {
    const y = i * LANE;
    parts.push(`<text x="0" y="${y + 13}">${escapeHtml(lane.length > 48 ? `${lane.slice(0, 47)}…` : lane)}</text>`);
    for (const e of byLane.get(lane) ?? []) {
      const color = COLOR[e.severity] ?? '#999';
      const x1 = x(e.start, t.since, t.until);
      if (e.type === 'point') {
        const cx = x1.toFixed(1);
        parts.push(
          `<path d="M${cx} ${y + 3}l6 6-6 6-6-6z" fill="${color}"><title>${tooltip(e, t.until)}</title></path>`,
        );
        continue;
      }
      const x2 = x(e.end ?? t.until, t.since, t.until);
      const w = Math.max(2, x2 - x1);
      const open = e.end === null ? ' stroke-dasharray="3 2" stroke="#333"' : '';
      parts.push(
        `<rect x="${x1.toFixed(1)}" y="${y + 3}" width="${w.toFixed(1)}" height="${LANE - 6}" rx="2" fill="${color}" fill-opacity="0.8"${open}><title>${tooltip(e, t.until)}</title></rect>`,
      );
    }
  });
  parts.push('</svg>');
  const hidden = new Set(t.events.map((e) => e.entity)).size - lanes.length;
  if (hidden > 0) parts.push(`<p class="meta">${hidden} more entities are listed in the table below only.</p>`);
  return parts.join('\n');
}

function sparkSvg(values: readonly number[]): string {
  const w = 240;
  const h = 28;
  const finite = values.filter((v) => !Number.isNaN(v));
  if (finite.length === 0) return '';
  const max = Math.max(...finite, 0);
  const min = Math.min(...finite, 0);
  const span = max - min || 1;
  const step = values.length > 1 ? w / (values.length - 1) : 0;
  const segments: string[] = [];
  let current: string[] = [];
  values.forEach((v, i) => {
    if (Number.isNaN(v)) {
      if (current.length > 0) segments.push(current.join(' '));
      current = [];
      return;
    }
    current.push(`${(i * step).toFixed(1)},${(h - 2 - ((v - min) / span) * (h - 4)).toFixed(1)}`);
  });
  if (current.length > 0) segments.push(current.join(' '));
  const lines = segments
    .map((pts) => `<polyline points="${pts}" fill="none" stroke="#1565c0" stroke-width="1.5"/>`)
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}">${lines}</svg>`;
}

/** `-o html`: one self-contained, script-free page. */
export function renderTimelineHtml(t: Timeline): string {
  const c = severityCounts(t.events);
  const title = `flightrec timeline${t.cluster !== undefined ? ` — ${t.cluster}` : ''}`;
  const out: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="meta">${escapeHtml(`${formatTimestampShort(t.since)} → ${formatTimestampShort(t.until)} (${formatHumanDuration(t.until - t.since)}) · ${t.events.length} events: ${c.error} error, ${c.warn} warn, ${c.info} info · ${t.polls.total} polls, ${t.polls.failed} failed`)}</p>`,
    '<h2>Intervals</h2>',
    t.events.length === 0 ? '<p>No events.</p>' : chart(t),
  ];
  const lines = seriesLines(t, 120);
  if (lines.length > 0) {
    out.push(
      '<h2>Key series</h2>',
      '<table><tr><th>Series</th><th>Trend</th><th>Min</th><th>Max</th><th>Last</th></tr>',
    );
    for (const l of lines) {
      out.push(
        `<tr><td><code>${escapeHtml(l.name)}</code></td><td>${sparkSvg(l.values)}</td><td class="num">${l.min}</td><td class="num">${l.max}</td><td class="num">${l.last ?? '-'} ${escapeHtml(l.unit)}</td></tr>`,
      );
    }
    out.push('</table>');
  }
  out.push('<h2>Events</h2>');
  if (t.events.length > 0) {
    out.push(
      '<table><tr><th>Start</th><th>End</th><th>Duration</th><th>Severity</th><th>Kind</th><th>Entity</th><th>What</th></tr>',
    );
    for (const e of t.events) {
      out.push(
        `<tr class="event sev-row-${e.severity}"><td>${escapeHtml(startText(e))}</td><td>${escapeHtml(endText(e))}</td><td class="num">${escapeHtml(durationText(e, t.until))}</td>` +
          `<td class="sev-${e.severity}">${e.severity}</td><td><code>${escapeHtml(e.kind)}</code></td><td><code>${escapeHtml(e.entity)}</code></td>` +
          `<td>${escapeHtml(e.description)}<div class="ev">${escapeHtml(evidenceText(e))}</div></td></tr>`,
      );
    }
    out.push('</table>');
  } else {
    out.push('<p>No events.</p>');
  }
  out.push('</body></html>', '');
  return out.join('\n');
}
