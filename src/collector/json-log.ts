/**
 * `--log-format json`: the collector's stderr lines as one JSON object per line, for log
 * shippers. A round becomes {time, level, cluster, operation, outcome, duration, message}; any
 * other line {time, level, message}. No status line is drawn. Text from the cluster is sanitized
 * as in the text lines (control characters escaped), and JSON.stringify escapes the rest.
 */
import { formatTimestampShort } from '../api/codec/timestamp.ts';
import { sanitizeCell } from '../api/safe-text.ts';
import { formatRound, wrongPrefixNotice, type Reporter, type TextOut } from './output.ts';
import type { RoundResult } from './poller.ts';

/** Severity of a JSON line. */
export type LogLevel = 'info' | 'warn' | 'error';

/** One JSON log line. */
export interface JsonLogLine {
  /** when the line was written, ISO 8601 UTC (the wall clock) */
  readonly time: string;
  readonly level: LogLevel;
  readonly cluster?: string;
  readonly operation?: string;
  /** ok, failed, stopped, standby, not_polled or nothing_to_poll */
  readonly outcome?: string;
  /** round duration, ms */
  readonly duration?: number;
  /** when the round was scheduled, ISO 8601 UTC (the collector clock) */
  readonly scheduled?: string;
  readonly message: string;
}

/** The outcome word of a round. */
export function roundOutcome(r: RoundResult): string {
  if (r.targets === 0) return 'nothing_to_poll';
  if (r.standby === true) return 'standby';
  if (r.stopped && r.calls === 0) return 'not_polled';
  if (r.failures.length > 0) return 'failed';
  return r.stopped ? 'stopped' : 'ok';
}

const LEVEL_OF: Readonly<Record<string, LogLevel>> = {
  ok: 'info',
  nothing_to_poll: 'info',
  standby: 'info',
  stopped: 'warn',
  not_polled: 'warn',
  failed: 'error',
};

/** The JSON line of a text line: `warning: ` and `error: ` prefixes become the level. */
export function jsonLineOf(text: string, nowMs: number): JsonLogLine {
  const m = /^(warning|error): /.exec(text);
  const level: LogLevel = m === null ? 'info' : m[1] === 'error' ? 'error' : 'warn';
  return {
    time: new Date(nowMs).toISOString(),
    level,
    message: sanitizeCell(m === null ? text : text.slice(m[0].length)),
  };
}

/** The JSON line of a round. */
export function jsonRoundLine(r: RoundResult, nowMs: number): JsonLogLine {
  const outcome = roundOutcome(r);
  return {
    time: new Date(nowMs).toISOString(),
    level: LEVEL_OF[outcome] ?? 'info',
    cluster: r.cluster,
    operation: r.operation,
    outcome,
    duration: Number((r.endedAt - r.startedAt) / 1_000_000n),
    scheduled: formatTimestampShort(r.scheduledAt),
    message: sanitizeCell(formatRound(r)),
  };
}

/**
 * A reporter writing JSON lines on `out`; `now` is the wall clock in ms. With `prefixOf`, a round
 * that looks like a wrong service prefix gets the wrongPrefixNotice (its command started with
 * `launcher`) as a warn line, once per cluster.
 */
export function createJsonReporter(
  out: TextOut,
  now: () => number,
  prefixOf?: (cluster: string) => string | undefined,
  launcher?: string,
): Reporter {
  const told = new Set<string>();
  const write = (l: JsonLogLine): void => void out.write(`${JSON.stringify(l)}\n`);
  return {
    round(r) {
      write(jsonRoundLine(r, now()));
      const prefix = told.has(r.cluster) ? undefined : prefixOf?.(r.cluster);
      const notice = prefix === undefined ? undefined : wrongPrefixNotice(r, prefix, launcher);
      if (notice === undefined) return;
      told.add(r.cluster);
      write({ ...jsonLineOf(`warning: ${notice}`, now()), cluster: r.cluster, operation: r.operation });
    },
    line: (text) => write(jsonLineOf(text, now())),
    status: () => {},
    done: () => {},
  };
}
