// The bench runner's comparison with the previous run (scripts/bench-compare.mjs): which way a
// figure is better, when a change counts as worse, and how the earlier figure is found.
import { describe, expect, it } from 'vitest';
import {
  adjustedChange,
  betterDirection,
  compareFigure,
  formatChange,
  formatPoints,
  formatPrevious,
  machineFactor,
  withPrevious,
  // @ts-expect-error: a plain ES module of the scripts, without type declarations
} from '../../scripts/bench-compare.mjs';
// @ts-expect-error: a plain ES module of the scripts, without type declarations
import { joinReferences, median, referenceWork } from '../../scripts/bench-reference.mjs';

describe('bench comparison with the previous run', () => {
  it('takes the direction from the goal first, then the figure, then the unit', () => {
    expect(betterDirection({ unit: 'x', goal: { op: '>=', value: 3 } })).toBe('higher');
    expect(betterDirection({ unit: 'ms', goal: { op: '>=', value: 3 } })).toBe('higher');
    expect(betterDirection({ unit: 'x', better: 'lower' })).toBe('lower');
    expect(betterDirection({ unit: 'ms' })).toBe('lower');
    expect(betterDirection({ unit: 'MiB' })).toBe('lower');
    expect(betterDirection({ unit: 'records/s' })).toBe('higher');
    expect(betterDirection({ unit: 'x' })).toBeNull();
    expect(betterDirection({ unit: 'polls' })).toBeNull();
  });

  it('marks a figure worse only past 5 % in the wrong direction', () => {
    expect(compareFigure({ value: 105, unit: 'ms' }, { value: 100 })).toMatchObject({ worse: false });
    expect(compareFigure({ value: 105.1, unit: 'ms' }, { value: 100 })).toMatchObject({ worse: true });
    expect(compareFigure({ value: 50, unit: 'ms' }, { value: 100 })).toMatchObject({ change: -0.5, worse: false });
    expect(compareFigure({ value: 94, unit: 'x', better: 'higher' }, { value: 100 })).toMatchObject({ worse: true });
    expect(compareFigure({ value: 200, unit: 'x' }, { value: 100 })).toMatchObject({ change: 1, worse: null });
    expect(compareFigure({ value: 3, unit: 'ms' }, { value: 0 })).toMatchObject({ change: null, worse: null });
    expect(compareFigure({ value: 3, unit: 'ms' }, undefined)).toBeUndefined();
  });

  it('finds the earlier figure by bench and name and dates it by its own run', () => {
    const earlier = {
      generatedAt: 'G',
      benches: [{ file: 'bench/a.bench.ts', at: 'A', loadAverage: 0.5 }],
      figures: [
        { name: 'n', value: 10, unit: 'ms', bench: 'bench/a.bench.ts' },
        { name: 'n', value: 99, unit: 'ms', bench: 'bench/b.bench.ts' },
      ],
    };
    const now = [
      { name: 'n', value: 12, unit: 'ms', bench: 'bench/a.bench.ts' },
      { name: 'm', value: 1, unit: 'ms', bench: 'bench/a.bench.ts' },
      { name: 'n', value: 99, unit: 'ms', bench: 'bench/b.bench.ts' },
    ];
    const [a, m, b] = withPrevious(now, earlier);
    expect(a.previous).toEqual({ value: 10, at: 'A', load: 0.5, change: 0.2, worse: true });
    expect(m.previous).toBeUndefined();
    expect(b.previous).toEqual({ value: 99, at: 'G', load: null, change: 0, worse: false });
    expect(withPrevious(now, {})).toEqual(now);
  });

  it('compares nothing with a damaged earlier result, and never throws on it', () => {
    const now = [{ name: 'n', value: 1, unit: 'ms', bench: 'bench/a.bench.ts' }];
    for (const earlier of [null, 7, 'x', { figures: {} }, { figures: [null, 3, 'f'] }, { benches: 'b', figures: 1 }]) {
      expect(withPrevious(now, earlier)).toEqual(now);
    }
    const odd = withPrevious(now, {
      generatedAt: 5,
      benches: [{ file: 'bench/a.bench.ts', at: {}, loadAverage: '9' }],
      figures: [{ name: 'n', value: '1', unit: 'ms', bench: 'bench/a.bench.ts' }],
    });
    expect(odd).toEqual(now);
    const dated = withPrevious(now, {
      generatedAt: 5,
      benches: [{ file: 'bench/a.bench.ts', at: {}, loadAverage: '9' }],
      figures: [{ name: 'n', value: 2, unit: 'ms', bench: 'bench/a.bench.ts' }],
    });
    expect(dated[0].previous).toEqual({ value: 2, at: null, load: null, change: -0.5, worse: false });
  });

  it('writes changes with their sign', () => {
    expect(formatChange(0.1234)).toBe('+12.3 %');
    expect(formatChange(-0.04)).toBe('−4.0 %');
    expect(formatChange(0)).toBe('±0 %');
    expect(formatChange(null)).toBe('—');
  });

  it("reads the machine's change of speed only from two references of the same work", () => {
    expect(machineFactor({ version: 1, ms: 300 }, { version: 1, ms: 150 })).toBe(2);
    expect(machineFactor({ version: 2, ms: 300 }, { version: 1, ms: 150 })).toBeUndefined();
    for (const bad of [
      undefined,
      null,
      5,
      {},
      { version: 1, ms: 0 },
      { version: 1, ms: '150' },
      { version: 1, ms: NaN },
    ]) {
      expect(machineFactor({ version: 1, ms: 300 }, bad)).toBeUndefined();
      expect(machineFactor(bad, { version: 1, ms: 300 })).toBeUndefined();
    }
  });

  it('takes the machine out of figures of time only', () => {
    expect(adjustedChange(1, 'ms', 2)).toBe(0);
    expect(adjustedChange(0.2, 'cores', 1.2)).toBeCloseTo(0);
    expect(adjustedChange(-0.5, 'records/s', 2)).toBe(0);
    expect(adjustedChange(0.5, 'MiB', 2)).toBeUndefined();
    expect(adjustedChange(0.5, 'x', 2)).toBeUndefined();
    expect(adjustedChange(null, 'ms', 2)).toBeUndefined();
    expect(adjustedChange(0.5, 'ms', undefined)).toBeUndefined();
  });

  it('judges a time after the machine when the machine moved past the limit, and keeps the raw change', () => {
    // twice as slow a machine, 1.5 times the time: better after the machine
    const slower = compareFigure({ value: 150, unit: 'ms' }, { value: 100 }, 'A', 1, 2);
    expect(slower).toMatchObject({ change: 0.5, machine: 2, adjusted: -0.25, worse: false });
    // a faster machine hides nothing: the same time on a machine twice as fast is worse
    expect(compareFigure({ value: 100, unit: 'ms' }, { value: 100 }, 'A', 1, 0.5)).toMatchObject({
      adjusted: 1,
      worse: true,
    });
    // a machine within the limit: the raw change is judged, nothing adjusted
    const same = compareFigure({ value: 106, unit: 'ms' }, { value: 100 }, 'A', 1, 1.04);
    expect(same).toMatchObject({ worse: true });
    expect(same.machine).toBeUndefined();
    // memory is not the machine's speed
    expect(compareFigure({ value: 150, unit: 'MiB' }, { value: 100 }, 'A', 1, 2)).toMatchObject({ worse: true });
    expect(compareFigure({ value: 150, unit: 'MiB' }, { value: 100 }, 'A', 1, 2).machine).toBeUndefined();
  });

  it('compares references bench by bench with the earlier run', () => {
    const earlier = {
      benches: [{ file: 'bench/a.bench.ts', at: 'A', loadAverage: 1, reference: { version: 1, ms: 100 } }],
      figures: [{ name: 'n', value: 10, unit: 'ms', bench: 'bench/a.bench.ts' }],
    };
    const now = [{ name: 'n', value: 18, unit: 'ms', bench: 'bench/a.bench.ts' }];
    const [n] = withPrevious(now, earlier, new Map([['bench/a.bench.ts', { version: 1, ms: 200 }]]));
    expect(n.previous).toMatchObject({ change: 0.8, machine: 2, worse: false });
    expect(n.previous.adjusted).toBeCloseTo(-0.1);
    expect(formatPrevious(n.previous)).toBe('10 (+80.0 %; machine ×2: −10.0 % after it)');
    const [raw] = withPrevious(now, earlier);
    expect(raw.previous).toMatchObject({ change: 0.8, worse: true });
    expect(formatPrevious(raw.previous)).toBe('10 (+80.0 %) ⚠');
  });

  it('has a fixed reference work', () => {
    expect(referenceWork()).toBe(referenceWork());
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeUndefined();
    const a = { version: 1, ms: 2, runs: [1, 2, 3] };
    const b = { version: 1, ms: 20, runs: [10, 20, 30] };
    expect(joinReferences(a, b)).toEqual({ version: 1, ms: 6.5, runs: [1, 2, 3, 10, 20, 30] });
    expect(joinReferences(a, undefined)).toBe(a);
    expect(joinReferences(undefined, b)).toBe(b);
    expect(joinReferences(undefined, undefined)).toBeUndefined();
  });

  it('compares a percentage by points, not by a share of itself', () => {
    const growth = { value: -0.7, unit: '%', goal: { op: '<=', value: 20 } };
    const p = compareFigure(growth, { value: -12.4 }, 'A', 1, 2);
    expect(p).toMatchObject({ change: null, points: 11.7, worse: true });
    expect(p.machine).toBeUndefined();
    expect(compareFigure({ value: 0.8, unit: '%' }, { value: 0.5 })).toMatchObject({ points: 0.3, worse: false });
    expect(compareFigure({ value: 5, unit: '%' }, { value: 0 })).toMatchObject({ points: 5, worse: false });
    expect(compareFigure({ value: 5.2, unit: '%' }, { value: 0 })).toMatchObject({ worse: true });
    expect(compareFigure({ value: 1, unit: '%', better: 'higher' }, { value: 7 })).toMatchObject({ worse: true });
    expect(formatPrevious(compareFigure({ value: 0.8, unit: '%' }, { value: 0.5 }))).toBe('0.5 (+0.3 points)');
    expect(formatPoints(-0.04)).toBe('±0 points');
    expect(formatPoints(-2.26)).toBe('−2.3 points');
  });
});
