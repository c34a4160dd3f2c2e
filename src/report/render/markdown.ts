/** Markdown renderings of query results (a table) and diffs (a report with sections per resource). */
import { sanitizeCell } from '../../api/safe-text.ts';
import type { TableView } from '../columns/index.ts';
import type { DiffResult, ResourceDiff } from '../diff.ts';
import { formatDuration, formatTime } from '../format-units.ts';
import type { QueryResult } from '../query.ts';
import { queryNote, queryView } from './query-text.ts';
import { formatChange, formatTotal, pollNote, unobservedReason } from './values.ts';

/** Text made safe inside a Markdown table cell or list item (no HTML, no emphasis, no pipes). */
export function mdText(text: string): string {
  return sanitizeCell(text).replace(/[\\`*_[\]<>|~&]/g, (c) => `\\${c}`);
}

/** An inline code span that survives backticks in the text. */
export function mdCode(text: string): string {
  const t = sanitizeCell(text);
  const longest = Math.max(0, ...(t.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/** A table view as a Markdown table. */
export function mdTable(view: TableView): string {
  const head = `| ${view.columns.map((c) => mdText(c.header)).join(' | ')} |`;
  const rule = `|${view.columns.map((c) => (c.align === 'right' ? '---:' : '---')).join('|')}|`;
  const rows = view.rows.map((r) => `| ${r.cells.map(mdText).join(' | ')} |`);
  return [head, rule, ...rows].join('\n');
}

/** Renders a query result as Markdown: a heading line and the table. */
export function renderQueryMarkdown(result: QueryResult, wide: boolean): string {
  const view = queryView(result, wide);
  const body = view.rows.length === 0 ? '_No rows._' : mdTable(view);
  return `**${mdText(queryNote(result))}**\n\n${body}\n`;
}

function resourceSection(r: ResourceDiff): string[] {
  const out = [`## ${r.resource}`, ''];
  if (!r.observed) {
    out.push('**Unobserved**: differences unknown.', '');
    const from = unobservedReason(r.from);
    const to = unobservedReason(r.to);
    if (from !== undefined) out.push(`- at \`--from\`: ${mdText(from)}`);
    if (to !== undefined) out.push(`- at \`--to\`: ${mdText(to)}`);
    out.push('');
    return out;
  }
  const apart = r.elapsedSeconds > 0 ? ` (${formatDuration(BigInt(Math.round(r.elapsedSeconds * 1e9)))} apart)` : '';
  out.push(`Compared ${mdText(pollNote(r.from))} with ${mdText(pollNote(r.to))}${apart}.`, '');
  out.push(
    `${r.added.length} added, ${r.removed.length} removed, ${r.changed.length} changed, ${r.unchanged} unchanged.`,
    '',
  );
  if (r.added.length > 0)
    out.push(`### Added (${r.added.length})`, '', ...r.added.map((e) => `- ${mdText(e.label)}`), '');
  if (r.removed.length > 0)
    out.push(`### Removed (${r.removed.length})`, '', ...r.removed.map((e) => `- ${mdText(e.label)}`), '');
  if (r.changed.length > 0) {
    out.push(`### Changed (${r.changed.length})`, '');
    for (const e of r.changed) {
      out.push(`- ${mdText(e.label)}`);
      for (const c of [...e.changes, ...e.counters, ...e.gauges]) out.push(`  - ${mdText(formatChange(c))}`);
    }
    out.push('');
  }
  const moving = r.totals.filter((t) => t.moving > 0);
  if (moving.length > 0) {
    out.push(
      'Totals over entities present at both instants:',
      '',
      ...moving.map((t) => `- ${mdText(formatTotal(t))}`),
      '',
    );
  }
  return out;
}

/** Renders a diff as a Markdown report. */
export function renderDiffMarkdown(result: DiffResult): string {
  const lines = [`# Diff ${formatTime(result.from)} → ${formatTime(result.to)}`, ''];
  if (result.unobserved.length > 0) {
    lines.push(`> **Unobserved:** ${result.unobserved.join(', ')}. Differences there are unknown, not absent.`, '');
  }
  const among = result.unobserved.length > 0 ? ' among the observed resources' : '';
  lines.push(`**${result.differences} difference${result.differences === 1 ? '' : 's'}${among}.**`, '');
  for (const r of result.resources) lines.push(...resourceSection(r));
  if (result.skipped.length > 0) lines.push(`_Never recorded, not compared: ${result.skipped.join(', ')}._`, '');
  return `${lines.join('\n').trimEnd()}\n`;
}
