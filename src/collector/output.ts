/**
 * What the collector prints, all on stderr: one summary line per round and, on a terminal, a
 * live status line (polls, errors, database size) redrawn in place with a carriage return.
 * No escape sequences, so NO_COLOR and dumb terminals are safe.
 */
import { formatTimestampShort } from '../api/codec/timestamp.ts';
import { sanitizeCell } from '../api/safe-text.ts';
import type { RoundCoverage } from './fanout.ts';
import type { RoundFailure, RoundResult } from './poller.ts';

/** A text stream such as process.stderr. */
export interface TextOut {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Counters the status line shows. */
export interface CollectorStats {
  rounds: number;
  polls: number;
  /** failed attempts (retries included) */
  errors: number;
  /** rounds in which some target ended in failure */
  failedRounds: number;
  /** records the store could not write yet (kept in memory) */
  unwritten: number;
  /** estimated memory of those records, bytes */
  heldBytes: number;
  /** records dropped (oldest first) because the held ones passed their memory budget */
  dropped: number;
  /** `not_stored` polls written to record dropped ones */
  lostRecorded: number;
  /** records stored as failed polls because their content could not be stored as received */
  unstorable: number;
  /** occurrences of configured secrets removed before storing */
  redactions: number;
  /** times the database file was found deleted or replaced and a new one was opened */
  reopened: number;
  /** rounds not run because another collector holds the cluster's lease */
  standbyRounds: number;
  /** retention passes run (src/collector/retention-runner.ts) */
  retentionRuns: number;
  /** polls removed by retention */
  prunedPolls: number;
  /** bytes of the file's pages retention freed */
  prunedBytes: number;
  /** the longest delay pruning added to a scheduled poll, ms (the longest slice of work run between polls) */
  maxPruneDelayMs: number;
}

/** Fresh counters. */
export function emptyStats(): CollectorStats {
  return {
    rounds: 0,
    polls: 0,
    errors: 0,
    failedRounds: 0,
    unwritten: 0,
    heldBytes: 0,
    dropped: 0,
    lostRecorded: 0,
    unstorable: 0,
    redactions: 0,
    reopened: 0,
    standbyRounds: 0,
    retentionRuns: 0,
    prunedPolls: 0,
    prunedBytes: 0,
    maxPruneDelayMs: 0,
  };
}

/** Human byte count: `512 B`, `1.2 MiB`. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = -1;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

function oneLine(text: string, max = 160): string {
  // messages come from the cluster (or a proxy): never let their control bytes reach the terminal
  const flat = sanitizeCell(text.replace(/\s+/g, ' ').trim());
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The summary line of a round. */
export function formatRound(r: RoundResult): string {
  const when = formatTimestampShort(r.scheduledAt);
  const ms = Number((r.endedAt - r.startedAt) / 1_000_000n);
  const parts = [when, r.cluster, r.operation];
  if (r.targets === 0) {
    parts.push('nothing to poll (no shadow link or topic configured)');
    return parts.join(' ');
  }
  const failed = r.failures.length;
  if (r.standby === true) {
    parts.push('standby: another collector records this cluster');
    return parts.join(' ');
  }
  if (r.stopped && r.calls === 0) {
    parts.push(
      "not polled: the collector stopped before this round's call could start (it waited behind a call in progress)",
    );
    return parts.join(' ');
  }
  parts.push(failed === 0 ? (r.stopped ? 'STOPPED' : 'ok') : `FAILED ${failed}/${r.targets}`);
  parts.push(`calls=${r.calls}`);
  if (r.failedCalls > 0 && failed === 0) parts.push(`retried=${r.failedCalls}`);
  if (r.coverage !== undefined) {
    const c = r.coverage;
    const pct = c.totalSize === 0n ? 100 : (r.coverage.rowsCovered * 100) / Number(c.totalSize);
    parts.push(
      `rows=${c.rowsCovered}/${c.totalSize}${c.complete ? '' : ` (coverage ${pct.toFixed(1)}%${cutText(c)})`}`,
    );
  }
  parts.push(`${ms}ms`);
  if (r.stopped)
    parts.push(`(stopped after ${r.calls} call${r.calls === 1 ? '' : 's'}: the rest of this round was not polled)`);
  if (failed > 0) {
    const f = r.failures[0]!;
    const status = f.httpStatus === undefined ? f.kind : `HTTP ${f.httpStatus}`;
    const target = f.target === '' ? '' : `${f.target}: `;
    parts.push(`— ${target}${f.code} (${status}): ${oneLine(f.message)}${failed > 1 ? ` (+${failed - 1} more)` : ''}`);
  }
  return parts.join(' ');
}

/**
 * A call that failed the way a server answers a path it does not serve: `unimplemented`, or an
 * HTTP 404 that is not a Connect error of the operation itself (an unknown shadow link's
 * `not_found` is one, and says nothing about the path).
 */
function pathNotServed(f: RoundFailure): boolean {
  return f.code === 'unimplemented' || (f.httpStatus === 404 && f.kind !== 'connect');
}

/**
 * The notice for a round in which every call failed as if the server did not serve the path:
 * the service prefix is most likely not the cluster's. Undefined for any other round. `launcher`
 * starts the suggested command as the user starts flightrec.
 */
export function wrongPrefixNotice(r: RoundResult, prefix: string, launcher = 'flightrec'): string | undefined {
  if (r.calls === 0 || r.failedCalls !== r.calls || r.failures.length !== r.targets || !r.failures.every(pathNotServed))
    return undefined;
  return (
    `${r.cluster}: the server does not serve ${r.operation} under the service prefix ${prefix} ` +
    `(every call answered 404 or unimplemented). A cluster serves its vendor's package name in place of "platform": ` +
    "set servicePrefix in the cluster's config (or --service-prefix, FLIGHTREC_SERVICE_PREFIX); " +
    `\`${launcher} check --base-url URL\` shows which operations answer`
  );
}

/** Writes round lines, warnings and the live status line. */
export interface Reporter {
  /** A round's summary line. */
  round(result: RoundResult): void;
  /** A warning or notice line. */
  line(text: string): void;
  /** Redraws the status line (terminal only). */
  status(stats: CollectorStats): void;
  /** Clears the status line, leaving the cursor at the start of an empty line. */
  done(): void;
}

/**
 * Creates a reporter on `out`; the status line is drawn only when `out` is a terminal. With
 * `prefixOf` (a cluster's service prefix), a round that looks like a wrong prefix gets the
 * wrongPrefixNotice (its command started with `launcher`), once per cluster.
 */
export function createReporter(
  out: TextOut,
  dbSize?: () => number | undefined,
  prefixOf?: (cluster: string) => string | undefined,
  launcher?: string,
): Reporter {
  const toldPrefix = new Set<string>();
  const live = out.isTTY === true;
  let shown = '';
  let last: CollectorStats | undefined;
  const clear = (): void => {
    if (shown !== '') out.write(`\r${' '.repeat(shown.length)}\r`);
    shown = '';
  };
  const draw = (stats: CollectorStats): void => {
    const size = dbSize?.();
    const text = [
      `polls ${stats.polls}`,
      `errors ${stats.errors}`,
      `rounds ${stats.rounds}`,
      ...(stats.failedRounds > 0 ? [`failed rounds ${stats.failedRounds}`] : []),
      ...(stats.unwritten > 0 ? [`UNWRITTEN ${stats.unwritten} (${formatBytes(stats.heldBytes)})`] : []),
      ...(stats.dropped > 0 ? [`DROPPED ${stats.dropped}`] : []),
      ...(stats.standbyRounds > 0 && stats.rounds === 0 ? ['STANDBY'] : []),
      ...(size === undefined ? [] : [`db ${formatBytes(size)}`]),
    ].join(' · ');
    const width = Math.max(20, (out.columns ?? 80) - 1);
    const fitted = text.length > width ? text.slice(0, width) : text;
    const pad = shown.length > fitted.length ? ' '.repeat(shown.length - fitted.length) : '';
    out.write(`\r${fitted}${pad}`);
    if (pad !== '') out.write(`\r${fitted}`);
    shown = fitted;
  };
  const line = (text: string): void => {
    if (live) clear();
    out.write(`${text}\n`);
    if (live && last !== undefined) draw(last);
  };
  return {
    round: (r) => {
      line(formatRound(r));
      const prefix = toldPrefix.has(r.cluster) ? undefined : prefixOf?.(r.cluster);
      const notice = prefix === undefined ? undefined : wrongPrefixNotice(r, prefix, launcher);
      if (notice === undefined) return;
      toldPrefix.add(r.cluster);
      line(`warning: ${notice}`);
    },
    line,
    status(stats) {
      last = { ...stats };
      if (live) draw(last);
    },
    done() {
      if (live) clear();
    },
  };
}

/** Why a fan-out fell short: the last answer the server cut (the page asked, the rows given and matched). */
function cutText(c: RoundCoverage): string {
  const cut = c.cut;
  if (cut === undefined) return '; no slice was cut: connections came and went between the calls';
  const where = cut.slice === '' ? 'the unsliced list' : oneLine(cut.slice);
  const page = cut.pageSize === 0 ? "the server's default page" : `pageSize ${cut.pageSize}`;
  return `; last cut: ${where} gave ${cut.rowsReturned} of ${cut.totalSize} rows (${page})`;
}
