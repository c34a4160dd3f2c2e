/**
 * Connection counts over time: by state every listed connection (open, aborting, recently
 * closed), by any other key the open ones. The value is the count at the last poll; the detail
 * has the minimum, maximum and mean over the window; the series the mean per bucket.
 */
import { RESOURCES } from '../../api/schema/resources.ts';
import { comparePolls } from '../timeline/frames.ts';
import { Buckets } from './buckets.ts';
import { counterFrames } from './counter-frames.ts';
import { connectionKey } from './group-keys.ts';
import type { TrendRow, TrendsSource } from './types.ts';

interface Counted {
  sum: number[];
  n: number[];
  min: number;
  max: number;
  total: number;
  last: number;
}

/** Counts connections per key per poll. */
export function connectionCounts(
  source: TrendsSource,
  by: string,
  window: { since: bigint; until: bigint; cluster?: string },
  buckets: Buckets,
): { rows: TrendRow[]; overall: number } {
  const ops = new Set<string>(RESOURCES.connections.operations);
  const polls = source
    .polls({ cluster: window.cluster, since: window.since, until: window.until })
    .filter((p) => p.outcome === 'ok' && ops.has(p.operation))
    .sort(comparePolls);
  const keys = new Map<string, Counted>();
  let frames = 0;
  let lastTotal = 0;
  // the narrow read with no counter: the slow fields (state and keys) alone
  for (const f of counterFrames(source, window, polls, [])) {
    if (f.poll.coverage === 'truncated') continue;
    const b = buckets.index(f.time);
    const now = new Map<string, number>();
    for (const c of f.rows) {
      if (by !== 'state' && c.state !== 'KAFKA_CONNECTION_STATE_OPEN') continue;
      const k = connectionKey(by, c);
      now.set(k, (now.get(k) ?? 0) + 1);
    }
    for (const [k, n] of now) {
      if (!keys.has(k))
        keys.set(k, {
          sum: buckets.empty().map(() => 0),
          n: buckets.empty().map(() => 0),
          min: frames === 0 ? n : 0,
          max: n,
          total: 0,
          last: n,
        });
    }
    let total = 0;
    for (const [k, c] of keys) {
      const n = now.get(k) ?? 0;
      total += n;
      c.sum[b] = (c.sum[b] as number) + n;
      c.n[b] = (c.n[b] as number) + 1;
      c.min = Math.min(c.min, n);
      c.max = Math.max(c.max, n);
      c.total += n;
      c.last = n;
    }
    lastTotal = total;
    frames++;
  }
  const rows: TrendRow[] = [...keys].map(([key, c]) => ({
    key,
    label: '',
    value: c.last,
    series: c.sum.map((s, i) => ((c.n[i] as number) === 0 ? Number.NaN : s / (c.n[i] as number))),
    detail: {
      min: c.min,
      max: c.max,
      mean: frames === 0 ? 0 : Math.round((c.total / frames) * 10) / 10,
      polls: frames,
    },
  }));
  return { rows, overall: lastTotal };
}
