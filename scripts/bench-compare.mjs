// How each figure of a bench run compares with the same figure of the run before it, so that a
// change making any figure worse by more than WORSE_LIMIT is printed, recorded and shown in
// docs/performance.md instead of going unnoticed.
//
// Which way is better: a figure's goal says it (`<=`: lower, `>=`: higher); a figure may say it
// itself (`better: 'lower' | 'higher'` in its FIGURE line); otherwise its unit does (times, sizes,
// memory, cores: lower; rates per second: higher). A figure with none of these (a bare ratio, a
// count) is shown with its change but never judged.

/** The share by which a figure may get worse before the run warns about it (5 %). */
export const WORSE_LIMIT = 0.05;

const LOWER_UNITS = new Set(['ms', 's', 'ns', 'B', 'MB', 'MiB', 'GB', 'cores', 'MB/h', '%']);
const HIGHER_UNITS = new Set(['records/s']);

/** 'lower', 'higher' or null: which way the figure is better, from its goal, its own word or its unit. */
export function betterDirection(f) {
  if (f.goal && (f.goal.op === '<=' || f.goal.op === '>=')) return f.goal.op === '<=' ? 'lower' : 'higher';
  if (f.better === 'lower' || f.better === 'higher') return f.better;
  if (LOWER_UNITS.has(f.unit)) return 'lower';
  if (HIGHER_UNITS.has(f.unit)) return 'higher';
  return null;
}

/**
 * The comparison of `now` with `before` (a figure of the earlier run with the same name and
 * bench, or undefined) run at `at` under the load average `load`: { value, at, load, change, worse } where change is the relative change of the
 * value (0.1 = 10 % higher) and worse is true when it moved the wrong way by more than WORSE_LIMIT
 * (null when the direction is unknown or the earlier value is 0). Undefined without an earlier
 * figure.
 */
export function compareFigure(now, before, at, load) {
  if (before === undefined || typeof before.value !== 'number' || !Number.isFinite(before.value)) return undefined;
  const change = before.value === 0 ? null : (now.value - before.value) / Math.abs(before.value);
  const direction = betterDirection(now);
  const worse =
    change === null || direction === null ? null : direction === 'lower' ? change > WORSE_LIMIT : change < -WORSE_LIMIT;
  return { value: before.value, at: at ?? null, load: load ?? null, change, worse };
}

/** The entries of `list` that are objects, or none when it is not an array (a damaged results file). */
const objects = (list) => (Array.isArray(list) ? list.filter((x) => typeof x === 'object' && x !== null) : []);

/**
 * Attaches `previous` (compareFigure's answer) to each figure of this run that the earlier result
 * also has; an earlier result that is damaged (not the shape bench.mjs writes) compares nothing.
 */
export function withPrevious(figures, earlier) {
  const key = (f) => `${f.bench}\u0000${f.name}`;
  const old = new Map(objects(earlier?.figures).map((f) => [key(f), f]));
  const run = new Map(objects(earlier?.benches).map((b) => [b.file, b]));
  return figures.map((f) => {
    const b = run.get(f.bench);
    const at = typeof b?.at === 'string' ? b.at : earlier?.generatedAt;
    const load = typeof b?.loadAverage === 'number' ? b.loadAverage : undefined;
    const previous = compareFigure(f, old.get(key(f)), typeof at === 'string' ? at : undefined, load);
    return previous === undefined ? f : { ...f, previous };
  });
}

/** "+12.3 %" / "−4.0 %" / "±0 %" for a relative change; "—" when there is none. */
export function formatChange(change) {
  if (change === null || change === undefined) return '—';
  const pct = Math.round(change * 1000) / 10;
  if (pct === 0) return '±0 %';
  return `${pct > 0 ? '+' : '−'}${Math.abs(pct).toFixed(1)} %`;
}
