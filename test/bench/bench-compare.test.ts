// The bench runner's comparison with the previous run (scripts/bench-compare.mjs): which way a
// figure is better, when a change counts as worse, and how the earlier figure is found.
import { describe, expect, it } from 'vitest';
import {
  betterDirection,
  compareFigure,
  formatChange,
  formatMachine,
  formatPoints,
  formatPrevious,
  isPaired,
  judgeTime,
  machineRange,
  withPrevious,
  // @ts-expect-error: a plain ES module of the scripts, without type declarations
} from '../../scripts/bench-compare.mjs';
import {
  describeParts,
  joinReferences,
  measureSpawn,
  median,
  referenceWork,
  // @ts-expect-error: a plain ES module of the scripts, without type declarations
} from '../../scripts/bench-reference.mjs';

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

  it("reads the machine's change only from two references of the same work", () => {
    expect(machineRange({ version: 1, ms: 300 }, { version: 1, ms: 150 })).toEqual({
      low: 2,
      high: 2,
      parts: { whole: 2 },
    });
    expect(machineRange({ version: 2, ms: 300 }, { version: 1, ms: 150 })).toBeUndefined();
    for (const bad of [
      undefined,
      null,
      5,
      {},
      { version: 1, ms: 0 },
      { version: 1, ms: '150' },
      { version: 1, ms: NaN },
    ]) {
      expect(machineRange({ version: 1, ms: 300 }, bad)).toBeUndefined();
      expect(machineRange(bad, { version: 1, ms: 300 })).toBeUndefined();
    }
  });

  it("spans the machine's change over the whole command, its parts, and the halves before and after the bench", () => {
    const then = {
      version: 1,
      ms: 100,
      runs: [100, 100, 100, 100, 100, 100, 100, 100, 100, 100],
      before: 5,
      parts: {
        version: 1,
        start: { runs: [50, 50, 50, 50, 50, 50], before: 3 },
        warm: { runs: [80, 80, 80, 80, 80, 80], before: 3 },
        fault: { runs: [10, 10] },
      },
    };
    const now = {
      version: 1,
      ms: 65,
      // the machine sped up during the bench: 80 before it, 50 after
      runs: [80, 80, 80, 80, 80, 50, 50, 50, 50, 50],
      before: 5,
      parts: {
        version: 1,
        // start 0.9×; its halves (3 runs each) are too few to count alone: 40 and 50 give 0.9 together
        start: { runs: [40, 40, 45, 45, 50, 50], before: 3 },
        // warm 1.0×; the fault part is recorded, never compared; sqlite only now: not compared
        warm: { runs: [80, 80, 80, 80, 80, 80], before: 3 },
        fault: { runs: [1, 1] },
        sqlite: { runs: [9] },
      },
    };
    const m = machineRange(now, then);
    expect(m).toEqual({ low: 0.5, high: 1, parts: { whole: 0.65, start: 0.9, warm: 1 } });
    // parts of another version: the whole command only
    expect(machineRange({ ...now, parts: { ...now.parts, version: 2 } }, then)).toMatchObject({ low: 0.5, high: 0.8 });
    // under load now: the wall-clock readings 1.5×, the CPU time 1.0×: the range holds both kinds of figure
    const quiet = {
      version: 1,
      ms: 100,
      runs: [100],
      parts: { version: 1, warm: { runs: [80] }, warmCpu: { runs: [78] } },
    };
    const loaded = {
      version: 1,
      ms: 150,
      runs: [150],
      parts: { version: 1, warm: { runs: [120] }, warmCpu: { runs: [78] } },
    };
    expect(machineRange(loaded, quiet)).toEqual({ low: 1, high: 1.5, parts: { whole: 1.5, warm: 1.5, warmCpu: 1 } });
    // halves of fewer than 5 runs: the median of all only
    expect(
      machineRange({ version: 1, ms: 65, runs: [80, 80, 50, 50], before: 2 }, { version: 1, ms: 100, runs: [100] }),
    ).toMatchObject({ low: 0.65, high: 0.65 });
    // a reference of an older file, without runs: its median
    expect(machineRange({ version: 1, ms: 60 }, { version: 1, ms: 100, runs: 'x' })).toMatchObject({ low: 0.6 });
    expect(formatMachine(m)).toBe('×0.5–1');
    // a comparison kept in a results file written before the ranges (a partial run keeps it) reads as it did
    expect(formatPrevious({ value: 10, change: 0.8, machine: 2, adjusted: -0.1, worse: false })).toBe(
      '10 (+80.0 %; machine ×2: −10.0 % after it)',
    );
    expect(formatMachine({ low: 2, high: 2 })).toBe('×2');
  });

  it('judges a time against the range of the machine: a warning only when no reading explains it', () => {
    // no machine known, or the plain limit
    expect(judgeTime(1.06, undefined)).toBe(true);
    expect(judgeTime(1.05, undefined)).toBe(false);
    // a machine faster by every reading never turns an improvement into a warning
    expect(judgeTime(0.8, { low: 0.42, high: 0.69 })).toBeNull();
    expect(judgeTime(0.7, { low: 0.42, high: 0.69 })).toBe(false);
    expect(judgeTime(1.1, { low: 0.42, high: 0.69 })).toBe(true);
    // a machine slower by every reading: worse only beyond its slowest reading
    expect(judgeTime(2.3, { low: 1.9, high: 2.1 })).toBe(true);
    expect(judgeTime(2.1, { low: 1.9, high: 2.1 })).toBeNull();
    expect(judgeTime(1.9, { low: 1.9, high: 2.1 })).toBe(false);
    // readings both ways: not worse within the limit of no change
    expect(judgeTime(1.05, { low: 0.9, high: 1.15 })).toBe(false);
    expect(judgeTime(1.15, { low: 0.9, high: 1.15 })).toBeNull();
    expect(judgeTime(1.21, { low: 0.9, high: 1.15 })).toBe(true);
  });

  it("does not warn when the reference overshoots the machine's change (the run of 2026-12-06)", () => {
    // the references of that run and the one before it: 0.42-0.69 times the earlier time
    const refs: Record<string, [number, number]> = {
      'bench/a.bench.ts': [281.1, 130.7],
      'bench/b.bench.ts': [272.5, 188.0],
    };
    const earlier = {
      generatedAt: 'G',
      benches: Object.entries(refs).map(([file, [ms]]) => ({
        file,
        at: 'A',
        loadAverage: 1,
        reference: { version: 1, ms, runs: [ms - 10, ms, ms + 10] },
      })),
      figures: [
        { name: 'start', value: 106, unit: 'ms', bench: 'bench/a.bench.ts' },
        { name: 'ingest', value: 125, unit: 'ms', bench: 'bench/a.bench.ts' },
        { name: 'cpu', value: 0.0396, unit: 'cores', bench: 'bench/b.bench.ts' },
        { name: 'rate', value: 100, unit: 'records/s', bench: 'bench/b.bench.ts' },
        { name: 'history', value: 5.68, unit: 'ms', goal: { op: '<=', value: 10 }, bench: 'bench/b.bench.ts' },
        { name: 'at_json_ratio', value: 1.31, unit: 'x', better: 'higher', bench: 'bench/b.bench.ts' },
      ],
    };
    const now = [
      { name: 'start', value: 90, unit: 'ms', bench: 'bench/a.bench.ts' }, // 0.85×
      { name: 'ingest', value: 105, unit: 'ms', bench: 'bench/a.bench.ts' }, // 0.84×
      { name: 'cpu', value: 0.0314, unit: 'cores', bench: 'bench/b.bench.ts' }, // 0.79×
      { name: 'rate', value: 130, unit: 'records/s', bench: 'bench/b.bench.ts' }, // 1/1.3 = 0.77× the time
      { name: 'history', value: 5.62, unit: 'ms', goal: { op: '<=', value: 10 }, bench: 'bench/b.bench.ts' }, // 0.99×
      { name: 'at_json_ratio', value: 1.48, unit: 'x', better: 'higher', bench: 'bench/b.bench.ts' },
    ];
    const references = new Map(
      Object.entries(refs).map(([file, [, ms]]) => [file, { version: 1, ms, runs: [ms - 5, ms, ms + 5] }]),
    );
    const compared = withPrevious(now, earlier, references);
    expect(compared.filter((f: { previous: { worse: boolean | null } }) => f.previous.worse === true)).toEqual([]);
    const [start, , cpu, rate, history, ratio] = compared;
    expect(start.previous).toMatchObject({ worse: null, machine: { low: 0.46, high: 0.46 } });
    expect(formatPrevious(start.previous)).toBe('106 (−15.1 %; machine ×0.46: not judged)');
    expect(cpu.previous.worse).toBeNull();
    expect(rate.previous.worse).toBeNull();
    expect(history.previous.worse).toBeNull();
    // a ratio of two things timed in the same run: judged plainly, never corrected
    expect(ratio.previous).toEqual({ value: 1.31, at: 'A', load: 1, change: expect.closeTo(0.13, 2), worse: false });
  });

  it('warns about a real regression of 20 % on a machine that did not change', () => {
    const reference = {
      version: 1,
      ms: 150,
      runs: [148, 150, 152, 149, 151, 150],
      before: 3,
      parts: { version: 1, start: { runs: [80, 81, 79, 80], before: 2 }, warm: { runs: [60, 61, 60, 59], before: 2 } },
    };
    const earlier = {
      benches: [{ file: 'bench/a.bench.ts', at: 'A', loadAverage: 1, reference }],
      figures: [
        { name: 'n', value: 100, unit: 'ms', bench: 'bench/a.bench.ts' },
        { name: 'r', value: 1000, unit: 'records/s', bench: 'bench/a.bench.ts' },
        { name: 'same', value: 100, unit: 'ms', bench: 'bench/a.bench.ts' },
      ],
    };
    const now = [
      { name: 'n', value: 120, unit: 'ms', bench: 'bench/a.bench.ts' },
      { name: 'r', value: 800, unit: 'records/s', bench: 'bench/a.bench.ts' },
      { name: 'same', value: 102, unit: 'ms', bench: 'bench/a.bench.ts' },
    ];
    const steady = {
      ...reference,
      runs: [151, 149, 150, 152, 150, 148],
      parts: { version: 1, start: { runs: [81, 80, 80, 79], before: 2 }, warm: { runs: [60, 60, 61, 59], before: 2 } },
    };
    const [n, r, same] = withPrevious(now, earlier, new Map([['bench/a.bench.ts', steady]]));
    expect(n.previous).toEqual({ value: 100, at: 'A', load: 1, change: 0.2, worse: true });
    expect(formatPrevious(n.previous)).toBe('100 (+20.0 %) ⚠');
    expect(r.previous.worse).toBe(true);
    expect(same.previous.worse).toBe(false);
    // on a machine slower by 8-12 %, still a warning: 1.2 is beyond 1.12 × 1.05
    const slower = { ...reference, runs: reference.runs.map((x) => x * 1.1), parts: undefined };
    const [n2] = withPrevious(now, earlier, new Map([['bench/a.bench.ts', slower]]));
    expect(n2.previous).toMatchObject({ worse: true, machine: { low: 1.1, high: 1.1 } });
    expect(formatPrevious(n2.previous)).toBe('100 (+20.0 %; machine ×1.1) ⚠');
  });

  it('reads the start of a spawned command from outside: node -e 0 (spawn, spawnCpu)', () => {
    const s = measureSpawn(2);
    expect(s.spawn.runs).toHaveLength(2);
    for (const ms of s.spawn.runs) expect(ms).toBeGreaterThan(0);
    // the children's CPU per run, from /proc/self/stat (Linux)
    expect(s.spawnCpu.runs).toHaveLength(1);
    expect(s.spawnCpu.runs[0]).toBeGreaterThan(0);
    const parts = (spawn: number[], cpu: number) => ({
      version: 1,
      start: { runs: [80, 80] },
      spawn: { runs: spawn },
      spawnCpu: { runs: [cpu] },
    });
    const then = { version: 1, ms: 100, runs: [100], parts: parts([78, 76, 80], 70) };
    const now = { version: 1, ms: 100, runs: [100], parts: parts([143, 150, 140], 105) };
    expect(machineRange(now, then)).toEqual({
      low: 1,
      high: 1.83,
      parts: { whole: 1, start: 1, spawn: 1.83, spawnCpu: 1.5 },
    });
    // a reference of before the spawn part (same parts version): compared on the others
    const older = { ...then, parts: { version: 1, start: { runs: [80, 80] } } };
    expect(machineRange(now, older)).toEqual({ low: 1, high: 1, parts: { whole: 1, start: 1 } });
    expect(describeParts(now.parts)).toBe('start 80 ms, spawn 143 ms, spawnCpu 105 ms');
  });

  it('does not warn about the start-heavy figures of the boot of 2026-12-07, whose machine only the spawned start reads', () => {
    // the whole command 1.34-1.47x (by all its runs and its halves), the start a process reads of
    // itself 1.34x, node -e 0 from outside 78 -> 143 ms (1.83x) and its CPU 80 -> 120 ms
    const ref = (whole: number[], start: number, spawn: number | undefined, spawnCpu: number) => ({
      version: 1,
      ms: median(whole),
      runs: whole,
      before: 5,
      parts: {
        version: 1,
        start: { runs: [start, start, start, start, start, start], before: 3 },
        ...(spawn === undefined
          ? {}
          : {
              spawn: { runs: [spawn - 2, spawn, spawn + 2, spawn, spawn - 1, spawn + 1, spawn], before: 3 },
              spawnCpu: { runs: [spawnCpu, spawnCpu], before: 1 },
            }),
      },
    });
    const then = ref([190, 190, 190, 190, 190, 190, 190, 190, 190, 190], 75, 78, 80);
    const now = ref([254.6, 254.6, 254.6, 254.6, 254.6, 279.3, 279.3, 279.3, 279.3, 279.3], 100.5, 143, 120);
    const earlier = {
      benches: ['bench/baseline.bench.ts', 'bench/tui.bench.ts', 'bench/alerts.bench.ts'].map((file) => ({
        file,
        at: 'A',
        loadAverage: 1,
        reference: then,
      })),
      figures: [
        // the earlier run's figures carried no spread
        { name: 'baseline.q1_filter_ms', value: 359, unit: 'ms', bench: 'bench/baseline.bench.ts' },
        { name: 'tui.first_frame_ms', value: 391.3, unit: 'ms', bench: 'bench/tui.bench.ts' },
        { name: 'alerts.on', value: 0.0314, unit: 'cores', bench: 'bench/alerts.bench.ts' },
        { name: 'alerts.overhead', value: 0.0039, unit: 'cores', bench: 'bench/alerts.bench.ts' },
      ],
    };
    const figures = [
      // jq over one file, median of 3 runs close together
      { name: 'baseline.q1_filter_ms', value: 602, unit: 'ms', spread: 0.04, bench: 'bench/baseline.bench.ts' },
      // 9 launches from 549.1 to 806.5 ms: (806.5 - 549.1) / 628.2
      { name: 'tui.first_frame_ms', value: 628.2, unit: 'ms', spread: 0.41, bench: 'bench/tui.bench.ts' },
      { name: 'alerts.on', value: 0.0346, unit: 'cores', bench: 'bench/alerts.bench.ts' },
      {
        name: 'alerts.overhead',
        value: 0.0067,
        unit: 'cores',
        unjudged: 'on minus off of two single runs',
        bench: 'bench/alerts.bench.ts',
      },
    ];
    const refs = (r: object) => new Map(earlier.benches.map((b) => [b.file, r]));
    const [q1, tui, on, overhead] = withPrevious(figures, earlier, refs(now));
    // jq: within the machine's range, not judged; the browser: past the limit of the machine's
    // nearest reading but within its spread of the slowest (1.6 <= 1.83 x 1.41): not judged either
    expect(q1.previous.worse).toBeNull();
    expect(tui.previous.worse).toBeNull();
    expect(overhead.previous.worse).toBeNull();
    expect(q1.previous.machine).toEqual({ low: 1.34, high: 1.83 });
    expect(formatPrevious(q1.previous)).toBe('359 (+67.7 %; machine ×1.34–1.83; spread 4 %: not judged)');
    expect(on.previous.worse).toBe(false);
    expect(formatPrevious(overhead.previous)).toBe(
      '0.0039 (+71.8 %; machine ×1.34–1.83; not judged: on minus off of two single runs)',
    );

    // the references as they were (no spawned start): the browser's spread and the overhead's reason
    // still keep them from warning; jq's 1.68x is beyond the machine's 1.47x and its 4 %: a warning
    const plainNow = ref(now.runs, 100.5, undefined, 0);
    const plainThen = ref(then.runs, 75, undefined, 0);
    const asRun = { ...earlier, benches: earlier.benches.map((b) => ({ ...b, reference: plainThen })) };
    const [q1b, tuib, , overheadb] = withPrevious(figures, asRun, refs(plainNow));
    expect(tuib.previous).toMatchObject({ worse: null, machine: { low: 1.34, high: 1.47 }, spread: 0.41 });
    expect(formatPrevious(tuib.previous)).toBe('391.3 (+60.5 %; machine ×1.34–1.47; spread 41 %: not judged)');
    expect(overheadb.previous.worse).toBeNull();
    expect(q1b.previous).toMatchObject({ worse: true, machine: { low: 1.34, high: 1.47 } });
  });

  it('still warns about a real regression beyond a small spread, and judges a figure without spread as before', () => {
    const steady = {
      version: 1,
      ms: 150,
      runs: [148, 150, 152, 149, 151, 150],
      before: 3,
      parts: {
        version: 1,
        start: { runs: [80, 81, 79, 80] },
        spawn: { runs: [78, 79, 77, 78] },
        spawnCpu: { runs: [70] },
      },
    };
    const earlier = {
      benches: [{ file: 'bench/a.bench.ts', at: 'A', loadAverage: 1, reference: steady }],
      figures: [
        { name: 'n', value: 100, unit: 'ms', bench: 'bench/a.bench.ts' },
        { name: 'wide', value: 100, unit: 'ms', bench: 'bench/a.bench.ts' },
        { name: 'r', value: 1000, unit: 'records/s', bench: 'bench/a.bench.ts' },
        // the earlier run's own spread counts too
        { name: 'then', value: 100, unit: 'ms', spread: 0.3, bench: 'bench/a.bench.ts' },
      ],
    };
    const now = [
      { name: 'n', value: 120, unit: 'ms', spread: 0.08, bench: 'bench/a.bench.ts' },
      { name: 'wide', value: 120, unit: 'ms', spread: 0.25, bench: 'bench/a.bench.ts' },
      { name: 'r', value: 800, unit: 'records/s', spread: 0.1, bench: 'bench/a.bench.ts' },
      { name: 'then', value: 125, unit: 'ms', spread: 0.02, bench: 'bench/a.bench.ts' },
    ];
    const [n, wide, r, then] = withPrevious(now, earlier, new Map([['bench/a.bench.ts', steady]]));
    expect(n.previous).toEqual({ value: 100, at: 'A', load: 1, change: 0.2, spread: 0.08, worse: true });
    expect(formatPrevious(n.previous)).toBe('100 (+20.0 %; spread 8 %) ⚠');
    // past the limit but within its own spread: neither a warning nor passed as not worse
    expect(wide.previous).toMatchObject({ spread: 0.25, worse: null });
    expect(r.previous.worse).toBe(true);
    expect(then.previous).toMatchObject({ spread: 0.3, worse: null });
    // a machine slower by 10 %: 1.2 is beyond 1.1 x 1.08, still a warning
    const slower = { ...steady, runs: steady.runs.map((x) => x * 1.1), parts: undefined };
    const [n2, wide2] = withPrevious(now, earlier, new Map([['bench/a.bench.ts', slower]]));
    expect(n2.previous).toMatchObject({ worse: true, machine: { low: 1.1, high: 1.1 } });
    expect(wide2.previous).toMatchObject({ worse: null });
    expect(judgeTime(1.2, { low: 1.1, high: 1.1 }, 0.08)).toBe(true);
    expect(judgeTime(1.18, { low: 1.1, high: 1.1 }, 0.08)).toBeNull();
    expect(judgeTime(1.15, { low: 1.1, high: 1.1 }, 0.08)).toBe(false);
    expect(judgeTime(1.3, { low: 0.9, high: 1.2 }, 0.1)).toBeNull();
    // no spread, or one that is not a number of 0 or more: exactly the judgement without it
    const m = { low: 0.9, high: 1.15 };
    for (const [value, unit] of [
      [105.1, 'ms'],
      [121, 'ms'],
      [116, 'ms'],
      [94, 'records/s'],
      [150, 'MiB'],
    ] as const) {
      const plain = compareFigure({ value, unit }, { value: 100 }, 'A', 1, m);
      expect(plain).not.toHaveProperty('spread');
      for (const spread of [undefined, -0.2, Number.NaN, '0.3', 0]) {
        expect(compareFigure({ value, unit, spread }, { value: 100, spread }, 'A', 1, m)).toEqual(plain);
      }
    }
  });

  it('never corrects sizes, memory or paired figures', () => {
    const m = { low: 2, high: 2 };
    expect(compareFigure({ value: 150, unit: 'MiB' }, { value: 100 }, 'A', 1, m)).toEqual({
      value: 100,
      at: 'A',
      load: 1,
      change: 0.5,
      worse: true,
    });
    expect(
      compareFigure({ name: 'x.at_ratio', value: 0.5, unit: 'x', better: 'higher' }, { value: 1 }, 'A', 1, m),
    ).toMatchObject({
      worse: true,
    });
    // a time that is a ratio by its name is not corrected either
    expect(compareFigure({ name: 'a.cpu_ratio', value: 150, unit: 'ms' }, { value: 100 }, 'A', 1, m)).toMatchObject({
      worse: true,
    });
    expect(isPaired({ name: 'ratio.q1_filter', unit: 'x' })).toBe(true);
    expect(isPaired({ name: 'cli.nothing_cpu_ratio', unit: 'x' })).toBe(true);
    expect(isPaired({ name: 'store.state_at_10k_ms', unit: 'ms' })).toBe(false);
    expect(isPaired({ name: 'store.duration_ms', unit: 'ms' })).toBe(false);
  });

  it('has a fixed reference work', () => {
    expect(referenceWork()).toBe(referenceWork());
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeUndefined();
    const a = { version: 1, ms: 2, runs: [1, 2, 3] };
    const b = { version: 1, ms: 20, runs: [10, 20, 30] };
    expect(joinReferences(a, b)).toEqual({ version: 1, ms: 6.5, runs: [1, 2, 3, 10, 20, 30], before: 3 });
    const pa = { ...a, parts: { version: 1, start: { runs: [5, 6] }, warm: { runs: [7] } } };
    const pb = { ...b, parts: { version: 1, start: { runs: [8] }, warm: { runs: [9] }, fault: { runs: [1] } } };
    expect(joinReferences(pa, pb).parts).toEqual({
      version: 1,
      start: { runs: [5, 6, 8], before: 2 },
      warm: { runs: [7, 9], before: 1 },
    });
    expect(joinReferences(pa, { ...pb, parts: { ...pb.parts, version: 2 } }).parts).toBeUndefined();
    expect(describeParts(joinReferences(pa, pb).parts)).toBe('start 6 ms, warm 8 ms');
    expect(describeParts(undefined)).toBe('');
    expect(joinReferences(a, undefined)).toBe(a);
    expect(joinReferences(undefined, b)).toBe(b);
    expect(joinReferences(undefined, undefined)).toBeUndefined();
  });

  it('compares a percentage by points, not by a share of itself', () => {
    const growth = { value: -0.7, unit: '%', goal: { op: '<=', value: 20 } };
    const p = compareFigure(growth, { value: -12.4 }, 'A', 1, { low: 2, high: 2 });
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
