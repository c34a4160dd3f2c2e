/**
 * `flightrec db prune --older-than T [--dry-run] [--yes] [--force]`: what would go is planned
 * first, with reads only. `--dry-run` prints the plan and changes nothing. Removing the newest
 * poll of an operation (every poll of it) needs `--force`. On a terminal the prune asks for
 * confirmation, naming the counts, unless `--yes`; with stdin not a terminal (scripts, cron) it
 * goes ahead as it always did, without asking.
 */
import { openOptionsOf, type TypedDb } from '../db-target.ts';
import { performance } from 'node:perf_hooks';
import { formatTimestampShort, timestampFromMillis } from '../../api/codec/timestamp.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { formatBytes } from '../../collector/output.ts';
import { parseCutoffArg } from '../../collector/time-args.ts';
import {
  createHistoryReader,
  createRollupStore,
  openDatabase,
  recordMaintenance,
  usedBytes,
  type PrunePlan,
  type PruneResult,
} from '../../db/index.ts';
import type { Thresholds } from '../../report/timeline/thresholds.ts';
import { EXIT, RuntimeError, UsageError, type CliIo } from '../context.ts';
import { withMaintenance } from './db.ts';
import { flagValue } from './time-option.ts';

/** The options of `db prune`. */
export interface PruneOpts {
  olderThan: string;
  dryRun?: boolean;
  yes?: boolean;
  force?: boolean;
}

/** The longest answer read at the confirmation prompt. */
const MAX_ANSWER = 256;

function counts(p: PrunePlan | PruneResult): string {
  return `${p.polls} polls, ${p.connectionBatches} connection batches, ${p.connections} connections, ${p.versions} versions, ${p.documents} documents`;
}

/** The second line of a plan: samples per resource, bytes, time range. */
function details(p: PrunePlan): string {
  const samples = Object.entries(p.samples)
    .filter(([, n]) => n > 0)
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  const range =
    p.from === undefined || p.to === undefined
      ? ''
      : `; polls from ${formatTimestampShort(p.from)} to ${formatTimestampShort(p.to)}`;
  return `samples: ${samples === '' ? 'none' : samples}; about ${formatBytes(p.bytes)}${range}`;
}

function planJson(p: PrunePlan): Record<string, unknown> {
  return {
    olderThan: formatTimestampShort(p.olderThan),
    polls: p.polls,
    connectionBatches: p.connectionBatches,
    connections: p.connections,
    versions: p.versions,
    documents: p.documents,
    samples: p.samples,
    bytes: p.bytes,
    from: p.from === undefined ? null : formatTimestampShort(p.from),
    to: p.to === undefined ? null : formatTimestampShort(p.to),
    emptied: p.emptied.map((e) => ({
      cluster: e.cluster,
      operation: e.operation,
      newest: formatTimestampShort(e.newest),
    })),
  };
}

/** Reads one line from a terminal (at most 256 characters); undefined on end of input or abort. */
function readAnswer(io: CliIo): Promise<string | undefined> {
  const stdin = io.stdin;
  if (stdin === undefined) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let text = '';
    const finish = (answer: string | undefined): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      io.signal.removeEventListener('abort', onEnd);
      stdin.pause();
      resolve(answer);
    };
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl >= 0 || text.length > MAX_ANSWER) finish(text.slice(0, nl >= 0 ? nl : MAX_ANSWER));
    };
    const onEnd = (): void => finish(undefined);
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    io.signal.addEventListener('abort', onEnd, { once: true });
    stdin.resume();
  });
}

/** Runs `db prune`; returns the exit code. */
export async function runPrune(
  path: string,
  g: { output?: string; config?: string; typed?: TypedDb },
  opts: PruneOpts,
  io: CliIo,
): Promise<number> {
  const cutoff = flagValue('--older-than', () => parseCutoffArg(opts.olderThan, io.now()), opts.olderThan);
  const json = g.output === 'json';
  let when: string;
  try {
    when = formatTimestampShort(cutoff);
  } catch {
    throw new UsageError(
      `--older-than: ${JSON.stringify(sanitizeForTerminal(opts.olderThan))} is out of range (a cut-off between the years 0001 and 9999)`,
    );
  }
  // planned with reads only: a dry run leaves the file byte for byte as it was
  const plan = withMaintenance(path, false, (m) => m.planPrune(cutoff), g.typed);
  if (opts.dryRun === true) {
    if (json) io.stdout.write(`${JSON.stringify({ dryRun: true, ...planJson(plan) }, null, 2)}\n`);
    else io.stdout.write(`would prune polls before ${when}: ${counts(plan)}\n${details(plan)}\n${emptiedNote(plan)}`);
    return EXIT.ok;
  }
  // the thresholds of the timeline's events kept with the rollups (a bad config file stops here)
  const { thresholdsFromConfig } = await import('./timeline.ts');
  const globals = { db: path, ...(g.config === undefined ? {} : { config: g.config }) };
  const thresholds = await thresholdsFromConfig(globals, io);
  if (plan.emptied.length > 0 && opts.force !== true) {
    throw new UsageError(
      `--older-than ${when} would remove the newest poll of ${emptiedList(plan)}: nothing of it would be left. ` +
        'Add --force to prune anyway, or see what would go with --dry-run',
    );
  }
  if (plan.polls > 0 && opts.yes !== true && io.stdin?.isTTY === true) {
    io.stderr.write(
      `prune polls before ${when}: ${counts(plan)}\n${details(plan)}\nDelete them? This cannot be undone. [y/N] `,
    );
    const answer = (await readAnswer(io))?.trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') {
      io.stderr.write('nothing pruned\n');
      return EXIT.failure;
    }
  }
  // summarised first (rollups), as retention does, so that trends and the timeline still cover what goes
  if (plan.polls > 0)
    await rollUpBefore(path, cutoff, thresholds, g.typed, (line) => io.stderr.write(`${sanitizeForTerminal(line)}\n`));
  const result = withMaintenance(
    path,
    true,
    (m, db) => {
      const start = performance.now();
      const before = usedBytes(db);
      const removed = m.prune(cutoff);
      // recorded in the maintenance log next to what retention removes
      recordMaintenance(db.sqlite, {
        at: timestampFromMillis(io.now()),
        action: 'prune',
        cutoff,
        polls: removed.polls,
        samples: Object.values(plan.samples).reduce((a, b) => a + b, 0),
        bytes: Math.max(0, before - usedBytes(db)),
        durationMs: performance.now() - start,
      });
      return removed;
    },
    g.typed,
  );
  if (json) {
    const { samples, bytes, from, to } = planJson(plan);
    io.stdout.write(`${JSON.stringify({ olderThan: when, ...result, samples, bytes, from, to }, null, 2)}\n`);
  } else {
    io.stdout.write(`pruned polls before ${when}: ${counts(result)}\n`);
  }
  return EXIT.ok;
}

/**
 * Runs rollUp for every cluster up to `cutoff` on this thread (a command may block); a failure
 * prunes nothing. Raw history that does not decode is left out of the rollups and told to `line`.
 */
async function rollUpBefore(
  path: string,
  cutoff: bigint,
  thresholds: Thresholds,
  typed: TypedDb | undefined,
  line: (text: string) => void,
): Promise<void> {
  const { createRollUp } = await import('../../report/rollup/index.ts');
  const db = openDatabase(path, { readonly: false, ...openOptionsOf(typed) });
  try {
    const reader = createHistoryReader(db);
    const rollUp = createRollUp(reader, createRollupStore(db), { thresholds, onDamage: line });
    for (const cluster of reader.clusters()) await rollUp(cluster, cutoff);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const when = formatTimestampShort(cutoff);
    throw new RuntimeError(`summarising the history before ${when} (rollups) failed, nothing was pruned: ${why}`);
  } finally {
    db.close();
  }
}

/** The operations left empty, per cluster: `cluster lab: GetUpgradeStatus, ListKafkaConnections (newest poll 2026-01-01T00:25:00Z)`. */
function emptiedList(p: PrunePlan): string {
  const byCluster = new Map<string, { ops: string[]; newest: bigint }>();
  for (const e of p.emptied) {
    const c = byCluster.get(e.cluster) ?? { ops: [], newest: e.newest };
    c.ops.push(e.operation);
    if (e.newest > c.newest) c.newest = e.newest;
    byCluster.set(e.cluster, c);
  }
  return [...byCluster]
    .map(
      ([cluster, c]) =>
        `cluster ${sanitizeForTerminal(cluster)}: ${c.ops.join(', ')} (newest poll ${formatTimestampShort(c.newest)})`,
    )
    .join('; ');
}

function emptiedNote(p: PrunePlan): string {
  if (p.emptied.length === 0) return '';
  return `note: this removes the newest poll of ${emptiedList(p)}; a real prune needs --force\n`;
}
