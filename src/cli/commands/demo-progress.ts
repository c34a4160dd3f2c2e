/**
 * The demo's progress: instead of a line per poll round, one line redrawn in place on a terminal
 * (simulated time, polls recorded, failures, scripted incidents started so far). Off a terminal
 * it draws nothing; the demo prints a line before and after.
 */
import type { CollectorStats, Reporter, RoundResult } from '../../collector/index.ts';
import type { TextSink } from '../context.ts';

/** What the progress line knows about the recording. */
export interface ProgressPlan {
  /** simulated start, ns since the epoch */
  readonly startNs: bigint;
  /** simulated length, ns */
  readonly lengthNs: bigint;
  /** when each scripted incident starts, ns after the start */
  readonly incidentOffsets: readonly bigint[];
}

/** Counts so far, for the closing line. */
export interface ProgressCounts {
  polls: number;
  failed: number;
  /** simulated ns recorded so far */
  elapsedNs: bigint;
  incidents: number;
}

/** The collector reporter of the demo, with its counts and the collector's own notes (shown on failure). */
export interface DemoProgress extends Reporter {
  readonly counts: ProgressCounts;
  readonly notes: string[];
}

const NS_PER_S = 1_000_000_000n;

/** `12m30s` for a simulated span. */
export function clockText(ns: bigint): string {
  const s = Number(ns / NS_PER_S);
  const m = Math.floor(s / 60);
  return `${m}m${String(s % 60).padStart(2, '0')}s`;
}

/** The progress line's text. */
export function progressText(plan: ProgressPlan, c: ProgressCounts): string {
  const total = plan.incidentOffsets.length;
  return [
    `simulated ${clockText(c.elapsedNs)}/${clockText(plan.lengthNs)}`,
    `${c.polls} polls`,
    `${c.failed} failed`,
    ...(total > 0 ? [`incidents ${c.incidents}/${total}`] : []),
  ].join(' · ');
}

/** A reporter that draws one progress line on `out` when it is a terminal, and nothing otherwise. */
export function createDemoProgress(out: TextSink, plan: ProgressPlan): DemoProgress {
  const live = out.isTTY === true;
  const counts: ProgressCounts = { polls: 0, failed: 0, elapsedNs: 0n, incidents: 0 };
  const notes: string[] = [];
  let shown = '';
  const draw = (): void => {
    if (!live) return;
    const width = Math.max(20, (out.columns ?? 80) - 1);
    const text = progressText(plan, counts).slice(0, width);
    if (text === shown) return;
    out.write(`\r${text}${' '.repeat(Math.max(0, shown.length - text.length))}`);
    shown = text;
  };
  return {
    counts,
    notes,
    round(r: RoundResult) {
      counts.polls += r.calls;
      counts.failed += r.failures.length;
      const elapsed = r.scheduledAt - plan.startNs;
      if (elapsed > counts.elapsedNs) counts.elapsedNs = elapsed < plan.lengthNs ? elapsed : plan.lengthNs;
      counts.incidents = plan.incidentOffsets.filter((o) => o <= counts.elapsedNs).length;
      draw();
    },
    line(text: string) {
      notes.push(text);
    },
    status(_stats: CollectorStats) {
      draw();
    },
    done() {
      if (live && shown !== '') out.write(`\r${' '.repeat(shown.length)}\r`);
      shown = '';
    },
  };
}
