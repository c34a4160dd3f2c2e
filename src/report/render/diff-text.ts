/** The text rendering of a diff: per resource, `+` added, `-` removed, `~` changed with one line per change. */
import type { DiffResult, EntityChange, ResourceDiff } from '../diff.ts';
import { formatDuration, formatTime } from '../format-units.ts';
import { paint } from './color.ts';
import { formatChange, formatTotal, pollNote, unobservedReason } from './values.ts';

/** Options of the text rendering. */
export interface DiffTextOptions {
  readonly color: boolean;
}

/** Renders a diff as text for a terminal or a log. */
export function renderDiffText(result: DiffResult, opts: DiffTextOptions): string {
  const c = opts.color;
  const only = result.only.length < 3 ? ` (only ${result.only.join(', ')})` : '';
  const lines: string[] = [paint(`diff ${formatTime(result.from)} → ${formatTime(result.to)}${only}`, 'bold', c), ''];
  for (const r of result.resources) {
    lines.push(...resourceLines(r, c), '');
  }
  if (result.skipped.length > 0)
    lines.push(paint(`never recorded, not compared: ${result.skipped.join(', ')}`, 'muted', c));
  lines.push(summaryLine(result, c));
  return `${lines.join('\n')}\n`;
}

function resourceLines(r: ResourceDiff, c: boolean): string[] {
  if (!r.observed) {
    const out = [`${paint(r.resource, 'bold', c)}: ${paint('UNOBSERVED', 'warn', c)}`];
    const from = unobservedReason(r.from);
    const to = unobservedReason(r.to);
    if (from !== undefined) out.push(`  at --from: ${from}`);
    if (to !== undefined) out.push(`  at --to: ${to}`);
    return out;
  }
  const apart = r.elapsedSeconds > 0 ? `, ${formatDuration(BigInt(Math.round(r.elapsedSeconds * 1e9)))} apart` : '';
  const out = [`${paint(r.resource, 'bold', c)}: ${pollNote(r.from)} → ${pollNote(r.to)}${apart}`];
  for (const e of r.added) out.push(paint(`  + ${e.label}`, 'added', c));
  for (const e of r.removed) out.push(paint(`  - ${e.label}`, 'removed', c));
  for (const e of r.changed) out.push(...changedLines(e, c));
  const none = r.added.length + r.removed.length + r.changed.length === 0;
  const tail = `${r.unchanged} unchanged${none ? ' (no differences)' : ''}`;
  out.push(
    paint(`  ${r.added.length} added, ${r.removed.length} removed, ${r.changed.length} changed, ${tail}`, 'muted', c),
  );
  const cc = r.connectionChanges;
  if (cc !== undefined) {
    out.push(
      paint(
        `  connections: ${cc.new} new, ${cc.closed} closed, ${cc.vanished} vanished, ${cc.expired} expired (added = new; removed = vanished + expired)`,
        'muted',
        c,
      ),
    );
  }
  const moving = r.totals.filter((t) => t.moving > 0);
  if (moving.length > 0) {
    out.push(paint('  totals over entities present at both instants:', 'muted', c));
    for (const t of moving) out.push(paint(`    ${formatTotal(t)}`, 'muted', c));
  }
  return out;
}

function changedLines(e: EntityChange, c: boolean): string[] {
  const out = [paint(`  ~ ${e.label}`, 'changed', c)];
  for (const ch of e.changes) out.push(`      ${formatChange(ch)}`);
  for (const ch of e.counters) out.push(`      ${formatChange(ch)}`);
  for (const ch of e.gauges) out.push(`      ${formatChange(ch)}`);
  return out;
}

function summaryLine(result: DiffResult, c: boolean): string {
  let added = 0;
  let removed = 0;
  let changed = 0;
  for (const r of result.resources) {
    added += r.added.length;
    removed += r.removed.length;
    changed += r.changed.length;
  }
  const counts = `${added} added, ${removed} removed, ${changed} changed`;
  if (result.unobserved.length > 0) {
    return paint(`${counts}; unobserved (differences unknown): ${result.unobserved.join(', ')}`, 'warn', c);
  }
  return result.differences === 0 ? `no differences (${counts})` : counts;
}
