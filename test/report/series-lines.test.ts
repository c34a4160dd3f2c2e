/**
 * The timeline's key series share one time axis: a series polled less often than another is drawn
 * stretched to the same cells, so that a column means the same time in every line (before, a
 * series of half as many rounds was drawn half as wide, and its peak stood under an earlier time).
 */
import { describe, expect, it } from 'vitest';
import { seriesLines } from '../../src/report/render/timeline-common.ts';
import type { Series } from '../../src/report/timeline/detector.ts';
import type { Timeline } from '../../src/report/timeline/timeline.ts';

const S = 1_000_000_000n;
const SINCE = 1_767_225_600n * S;

/** A series sampled every `stepS` seconds over 20 minutes, zero but for `peak` at second `atS`. */
function series(name: string, stepS: number, atS: number): Series {
  const times: bigint[] = [];
  const values: number[] = [];
  for (let s = 0; s < 1200; s += stepS) {
    times.push(SINCE + BigInt(s) * S);
    values.push(s === atS ? 100 : 1);
  }
  return { name, unit: 'records', times, values };
}

function timeline(list: Series[]): Timeline {
  return {
    cluster: 'sim',
    since: SINCE,
    until: SINCE + 1200n * S,
    events: [],
    series: list,
    polls: { total: 0, failed: 0 },
  };
}

describe('seriesLines', () => {
  it('draws every series over the same cells, a peak at the same time in the same column', () => {
    const lines = seriesLines(timeline([series('every 30 s', 30, 600), series('every 60 s', 60, 600)]), 60);
    const [fine, coarse] = lines;
    expect(fine!.values).toHaveLength(40);
    expect(coarse!.values).toHaveLength(40);
    expect([...fine!.spark]).toHaveLength(40);
    expect([...coarse!.spark]).toHaveLength(40);
    const peak = (values: number[]): number => values.indexOf(100);
    // second 600 of 1200: the middle column in both
    expect(peak(fine!.values)).toBe(20);
    expect([20, 21]).toContain(peak(coarse!.values));
    expect(coarse!.values.filter((v) => v === 100)).toHaveLength(2);
  });

  it('keeps a series as wide as its rounds when none is polled more often, and at most the width', () => {
    const [one] = seriesLines(timeline([series('every 60 s', 60, 0)]), 60);
    expect(one!.values).toHaveLength(20);
    const [many] = seriesLines(timeline([series('every 5 s', 5, 0)]), 60);
    expect(many!.values).toHaveLength(60);
    expect(
      seriesLines(timeline([series('flat', 60, -1)].map((s) => ({ ...s, values: s.values.map(() => 0) }))), 60),
    ).toEqual([]);
  });
});
