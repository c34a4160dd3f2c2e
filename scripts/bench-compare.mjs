// How each figure of a bench run compares with the same figure of the run before it, so that a
// change making any figure worse by more than WORSE_LIMIT is printed, recorded and shown in
// docs/performance.md instead of going unnoticed.
//
// Which way is better: a figure's goal says it (`<=`: lower, `>=`: higher); a figure may say it
// itself (`better: 'lower' | 'higher'` in its FIGURE line); otherwise its unit does (times, sizes,
// memory, cores: lower; rates per second: higher). A figure with none of these (a bare ratio, a
// count) is shown with its change but never judged. A figure in % changes by percentage points,
// judged past 5 points.
//
// The machine: each bench run times a fixed piece of work just before the bench
// (bench-reference.mjs), kept with the bench's run. When both runs have it and it took more than
// WORSE_LIMIT longer or shorter than before, the machine itself changed speed, and a figure of
// time (ms, s, ns, cores, records/s) is judged on its change divided by the machine's (`machine`:
// the factor, `adjusted`: the change after it); sizes, memory and ratios to a baseline timed in the
// same run are judged as they are. The raw change is always kept and shown.

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

/** Units of figures that a slower machine makes larger (times, CPU shares) or smaller (rates). */
const SLOWER_RAISES = new Set(['ms', 's', 'ns', 'cores']);
const SLOWER_LOWERS = new Set(['records/s']);

/**
 * The machine's change of speed between two references ({ version, ms } of bench-reference.mjs):
 * now's time over before's (2 = twice as slow now), or undefined when either is missing, damaged
 * or of another version of the work.
 */
export function machineFactor(now, before) {
  const ok = (r) =>
    typeof r === 'object' && r !== null && typeof r.ms === 'number' && Number.isFinite(r.ms) && r.ms > 0;
  if (!ok(now) || !ok(before) || now.version !== before.version) return undefined;
  return now.ms / before.ms;
}

/**
 * The relative change of a figure in `unit` after the machine's own change `factor` (a change of
 * `change` on a machine `factor` times as slow), or undefined when the unit does not scale with it.
 */
export function adjustedChange(change, unit, factor) {
  if (change === null || factor === undefined) return undefined;
  if (SLOWER_RAISES.has(unit)) return (1 + change) / factor - 1;
  if (SLOWER_LOWERS.has(unit)) return (1 + change) * factor - 1;
  return undefined;
}

/**
 * The comparison of `now` with `before` (a figure of the earlier run with the same name and
 * bench, or undefined) run at `at` under the load average `load`, the machine `factor` times as
 * slow now as then (machineFactor; undefined when unknown): { value, at, load, change, worse } where
 * change is the relative change of the value (0.1 = 10 % higher) and worse is true when it moved
 * the wrong way by more than WORSE_LIMIT (null when the direction is unknown or the earlier value
 * is 0); with `machine` and `adjusted` besides when the machine's speed moved by more than
 * WORSE_LIMIT and the figure scales with it, worse then judging the adjusted change. Undefined
 * without an earlier figure.
 */
export function compareFigure(now, before, at, load, factor) {
  if (before === undefined || typeof before.value !== 'number' || !Number.isFinite(before.value)) return undefined;
  if (now.unit === '%') return comparePercent(now, before, at, load);
  const change = before.value === 0 ? null : (now.value - before.value) / Math.abs(before.value);
  const moved = factor !== undefined && Math.abs(factor - 1) > WORSE_LIMIT;
  const adjusted = moved ? adjustedChange(change, now.unit, factor) : undefined;
  const judged = adjusted ?? change;
  const direction = betterDirection(now);
  const worse =
    judged === null || direction === null ? null : direction === 'lower' ? judged > WORSE_LIMIT : judged < -WORSE_LIMIT;
  const base = { value: before.value, at: at ?? null, load: load ?? null, change, worse };
  return adjusted === undefined ? base : { ...base, machine: Math.round(factor * 100) / 100, adjusted };
}

/**
 * A figure that is itself a percentage (a spread, a growth that may be negative) changes by
 * percentage points, not by a share of itself: -12.4 % to -0.7 % is 11.7 points, not +94 %.
 * { value, at, load, points, worse } with worse past WORSE_LIMIT × 100 points the wrong way.
 */
function comparePercent(now, before, at, load) {
  const points = Math.round((now.value - before.value) * 1000) / 1000;
  const direction = betterDirection(now);
  const limit = WORSE_LIMIT * 100;
  const worse = direction === null ? null : direction === 'lower' ? points > limit : points < -limit;
  return { value: before.value, at: at ?? null, load: load ?? null, change: null, points, worse };
}

/** The entries of `list` that are objects, or none when it is not an array (a damaged results file). */
const objects = (list) => (Array.isArray(list) ? list.filter((x) => typeof x === 'object' && x !== null) : []);

/**
 * Attaches `previous` (compareFigure's answer) to each figure of this run that the earlier result
 * also has; `references` maps a bench file to this run's reference of the machine, compared with
 * the one kept with the earlier run of the same bench. An earlier result that is damaged (not the
 * shape bench.mjs writes) compares nothing.
 */
export function withPrevious(figures, earlier, references = new Map()) {
  const key = (f) => `${f.bench}\u0000${f.name}`;
  const old = new Map(objects(earlier?.figures).map((f) => [key(f), f]));
  const run = new Map(objects(earlier?.benches).map((b) => [b.file, b]));
  return figures.map((f) => {
    const b = run.get(f.bench);
    const at = typeof b?.at === 'string' ? b.at : earlier?.generatedAt;
    const load = typeof b?.loadAverage === 'number' ? b.loadAverage : undefined;
    const factor = machineFactor(references.get(f.bench), b?.reference);
    const previous = compareFigure(f, old.get(key(f)), typeof at === 'string' ? at : undefined, load, factor);
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

/** The "before" cell of a compared figure: "10 (+20.0 %)", with the machine's part when it was taken out. */
export function formatPrevious(p) {
  const machine = p.machine === undefined ? '' : `; machine ×${p.machine}: ${formatChange(p.adjusted)} after it`;
  const change = typeof p.points === 'number' ? formatPoints(p.points) : formatChange(p.change);
  return `${p.value} (${change}${machine})${p.worse ? ' ⚠' : ''}`;
}

/** "+11.7 points" / "−0.3 points" / "±0 points" for a change of a percentage. */
export function formatPoints(points) {
  const r = Math.round(points * 10) / 10;
  if (r === 0) return '±0 points';
  return `${r > 0 ? '+' : '−'}${Math.abs(r).toFixed(1)} points`;
}
