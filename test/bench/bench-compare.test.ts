// The bench runner's comparison with the previous run (scripts/bench-compare.mjs): which way a
// figure is better, when a change counts as worse, and how the earlier figure is found.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the scripts, without type declarations
import { betterDirection, compareFigure, formatChange, withPrevious } from '../../scripts/bench-compare.mjs';

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
});
