/** The thresholds in force as the help lists them: every key, its value, and whether the config file changed it. Pure. */
import { formatHumanDuration } from '../api/codec/duration.ts';
import { formatCount } from '../report/format-units.ts';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../report/timeline/thresholds.ts';

/** Thresholds counted in records; every other bigint is a duration in nanoseconds. */
const RECORDS = new Set(['shadow.lagRecords', 'iceberg.commitLag']);
/** The thresholds the browser's own marks use, listed first. */
const MARKS = ['shadow.lagRecords', 'iceberg.commitLag'];

/** One threshold in force. */
export interface ThresholdEntry {
  /** dotted key, as in the config file (`shadow.lagRecords`) */
  readonly name: string;
  readonly value: string;
  /** differs from the default */
  readonly changed: boolean;
  /** the browser's lag marks use it */
  readonly marks: boolean;
}

function text(name: string, v: unknown): string {
  if (typeof v === 'bigint') return RECORDS.has(name) ? formatCount(v) : formatHumanDuration(v);
  return String(v);
}

function flatten(v: unknown, d: unknown, prefix: string, out: ThresholdEntry[]): void {
  if (v !== null && typeof v === 'object') {
    for (const [k, sub] of Object.entries(v)) {
      const def = d !== null && typeof d === 'object' ? (d as Record<string, unknown>)[k] : undefined;
      flatten(sub, def, prefix === '' ? k : `${prefix}.${k}`, out);
    }
    return;
  }
  out.push({ name: prefix, value: text(prefix, v), changed: v !== d, marks: MARKS.includes(prefix) });
}

/** Every threshold in force, the marks' first, then in the config file's order. */
export function thresholdEntries(t: Thresholds = DEFAULT_THRESHOLDS): ThresholdEntry[] {
  const out: ThresholdEntry[] = [];
  flatten(t, DEFAULT_THRESHOLDS, '', out);
  const rank = (e: ThresholdEntry): number => (e.marks ? 0 : 1);
  return out.sort((a, b) => rank(a) - rank(b));
}
