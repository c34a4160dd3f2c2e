/**
 * The progress of `db copy` on stderr: on a terminal one bar redrawn in place at most ten times a
 * second (polls copied of the total, percent, rate, time left); elsewhere nothing until the end.
 */
import type { TextSink } from '../context.ts';

/** Redraws at most this often, ms. */
const REDRAW_MS = 100;
const BAR_WIDTH = 24;

/** `1:05` or `1:02:05` for a number of seconds. */
export function clockOf(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** The bar's text: `[#####-----]  45%  1234/2700 polls  310 polls/s  ETA 0:05`. */
export function copyProgressText(copied: number, total: number, elapsedMs: number): string {
  const share = total <= 0 ? 1 : Math.min(1, copied / total);
  const filled = Math.round(share * BAR_WIDTH);
  const rate = elapsedMs > 0 ? (copied * 1000) / elapsedMs : 0;
  const eta = rate > 0 ? clockOf((total - copied) / rate) : '-';
  return [
    `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`,
    `${String(Math.floor(share * 100)).padStart(3)}%`,
    `${copied}/${total} polls`,
    `${Math.round(rate)} polls/s`,
    `ETA ${eta}`,
  ].join('  ');
}

/** A progress bar on `out` (drawn only when it is a terminal). */
export interface CopyProgress {
  /** Counts so far; redraws when the last drawing is REDRAW_MS old (or `force`). */
  update(copied: number, total: number, force?: boolean): void;
  /** Removes the bar (before the closing line or an error). */
  clear(): void;
}

/** Creates the progress bar; `now` gives ms. */
export function createCopyProgress(out: TextSink, now: () => number): CopyProgress {
  const live = out.isTTY === true;
  const start = now();
  let drawnAt = -Infinity;
  let shown = '';
  return {
    update(copied, total, force = false) {
      if (!live) return;
      const t = now();
      if (!force && t - drawnAt < REDRAW_MS) return;
      drawnAt = t;
      const width = Math.max(20, (out.columns ?? 80) - 1);
      const text = copyProgressText(copied, total, t - start).slice(0, width);
      out.write(`\r${text}${' '.repeat(Math.max(0, shown.length - text.length))}`);
      shown = text;
    },
    clear() {
      if (live && shown !== '') out.write(`\r${' '.repeat(shown.length)}\r`);
      shown = '';
    },
  };
}
