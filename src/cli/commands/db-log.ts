/**
 * `flightrec db log [--limit N]`: what retention and `db prune` removed, newest last; and the
 * "held at each resolution" block of `db stats`.
 */
import type { Command } from 'commander';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import { formatBytes } from '../../collector/output.ts';
import { droppedPartitionsOf, readMaintenanceLog, type HeldRange, type MaintenanceEntry } from '../../db/index.ts';
import { formatSpan } from '../../report/format-units.ts';
import { UsageError, type CliIo } from '../context.ts';
import { withMaintenance } from './db.ts';
import { typedDb } from '../db-target.ts';
import { globalOptionsHelp } from './help.ts';

interface GlobalOpts {
  db: string;
  dbPasswordFile?: string;
  output?: string;
}

/** The text form of the maintenance log: columns as wide as their widest cell (times may carry milliseconds). */
export function formatMaintenanceLog(entries: readonly MaintenanceEntry[]): string {
  if (entries.length === 0) return 'nothing pruned yet (retention and db prune record what they remove here)\n';
  const header = ['time', 'cluster', 'action', 'cut-off', 'polls', 'samples', 'freed', 'took'];
  const right = [false, false, false, false, true, true, true, true];
  const rows = entries.map((e) => [
    formatTimestampShort(e.at),
    sanitizeCell(e.cluster ?? '-'),
    e.action,
    e.cutoff === undefined ? '-' : formatTimestampShort(e.cutoff),
    String(e.polls),
    String(e.samples),
    formatBytes(e.bytes),
    `${e.durationMs} ms`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (right[i] === true ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join(' ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

/** One entry as JSON (times as RFC 3339). */
export function maintenanceJson(e: MaintenanceEntry): Record<string, unknown> {
  return {
    at: formatTimestampShort(e.at),
    cluster: e.cluster ?? null,
    action: e.action,
    cutoff: e.cutoff === undefined ? null : formatTimestampShort(e.cutoff),
    polls: e.polls,
    samples: e.samples,
    bytes: e.bytes,
    durationMs: e.durationMs,
    // a day dropped whole on PostgreSQL: its partitions, named by the day that ends at the cut-off
    ...(e.action === 'retention-partitions' && e.cutoff !== undefined
      ? { partitions: droppedPartitionsOf(e.cutoff) }
      : {}),
  };
}

/** The "held at each resolution" block of `db stats` (text). */
export function formatHeldRanges(held: readonly HeldRange[]): string {
  const lines = ['', 'held at each resolution'];
  for (const h of held) {
    const range =
      h.from === undefined || h.to === undefined
        ? '-'
        : `${formatTimestampShort(h.from)} .. ${formatTimestampShort(h.to)} (${formatSpan(h.to - h.from)})`;
    lines.push(`${h.resolution.padEnd(8)} ${range}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The same block as JSON. */
export function heldRangesJson(held: readonly HeldRange[]): Record<string, unknown>[] {
  return held.map((h) => ({
    resolution: h.resolution,
    from: h.from === undefined ? null : formatTimestampShort(h.from),
    to: h.to === undefined ? null : formatTimestampShort(h.to),
  }));
}

/** Registers `db log`. */
export function registerDbLog(
  db: Command,
  io: CliIo,
  done: (code: number) => void,
  pathOf: (cmd: Command) => { path: string; shown: string; g: GlobalOpts },
): void {
  db.command('log')
    .description(
      'what retention and db prune removed: time, cluster, action, cut-off, polls, samples, bytes freed, duration',
    )
    .option('--limit <n>', 'the newest N entries (default 100)')
    .addHelpText('after', globalOptionsHelp({ db: 'the history database to inspect', output: ['text', 'json'] }))
    .action((opts: { limit?: string }, cmd: Command) => {
      const { path, shown, g } = pathOf(cmd);
      const limit = opts.limit === undefined ? 100 : Number(opts.limit);
      if (!Number.isSafeInteger(limit) || limit < 1 || !/^[0-9]+$/.test(opts.limit ?? '100')) {
        throw new UsageError(
          `--limit: must be a whole number of at least 1, got ${JSON.stringify(sanitizeCell(opts.limit ?? ''))}`,
        );
      }
      const entries = withMaintenance(
        path,
        false,
        (_m, handle) => readMaintenanceLog(handle.sqlite, limit),
        typedDb(g, io.cwd),
      );
      if (g.output === 'json')
        io.stdout.write(`${JSON.stringify({ database: shown, entries: entries.map(maintenanceJson) }, null, 2)}\n`);
      else io.stdout.write(formatMaintenanceLog(entries));
      done(0);
    });
}
