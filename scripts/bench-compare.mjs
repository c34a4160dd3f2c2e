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
// The machine: each bench run times a fixed reference just before the bench and again after it
// (bench-reference.mjs): a whole command, and its parts (a process's start, a piece of work cold
// and warm, SQLite in memory, and the CPU time of the start and the warm work), kept with the
// bench's run. Each of these that both runs have gives a ratio of its time now to its time then,
// and so do the whole command's halves taken before and after the bench (a machine that changed
// during the bench); together they give the machine's change as a range ×low–high (`machine`),
// since no single reference moves like every figure: on 2026-12-06 the whole command took
// 0.42-0.69× its earlier time while the figures of time of unchanged code moved 0.36-1.78× (half of
// them 0.71-0.94×), and dividing by the reference turned nearly every figure into a false "worse".
// A figure of time (ms, s, ns, cores; records/s the other way) is then:
// - worse when it moved the wrong way by more than WORSE_LIMIT beyond the slowest reading of the
//   machine and beyond no change at all: what no reading of the machine explains;
// - not worse when it moved no more than WORSE_LIMIT beyond the reading nearest to no change;
// - otherwise not judged (`worse: null`, `machine` says why): the figure moved less than the
//   machine got faster, or more than no change and less than the machine got slower.
// So a reference never turns an improvement into a warning, and without references (an earlier
// run before they existed) or with a machine unchanged the limit applies to the plain change.
// The readings include `node -e 0` spawned and timed from outside (spawn, spawnCpu): on 2026-12-07
// `node -e 0` took 1.83x its earlier time in the bench of whole commands and the figures of spawned
// commands of unchanged code moved 1.6-1.7x, beyond the whole reference's 1.34-1.47x: flagged.
//
// A figure's own noise: a FIGURE line may say how far the bench's own runs of it spread (`spread`,
// relative, e.g. (max - min) / median of its runs: 0.2 = 20 %). The larger of this run's and the
// earlier run's spread then takes the place of WORSE_LIMIT for a warning when it is larger, in the
// plain judgement and beyond the machine's range: such a figure is worse only beyond its spread and
// beyond the machine; past WORSE_LIMIT but within its spread it is not judged (never "not worse").
// A figure whose change no run can judge (a difference of two single runs, each noisier than the
// difference) says so and why (`unjudged: 'reason'`): it is shown with its change and "not
// judged", never warned about; the figures it is made of still are.
// Sizes, memory, counts and figures that are themselves ratios of two things timed in the same
// run (unit x, names *_ratio or ratio.*) are judged on their plain change, never corrected. The
// plain change is always kept and shown.

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

/** True for a figure that is a ratio of two things timed in the same run: the machine cancels out. */
export function isPaired(f) {
  return f.unit === 'x' || /(^|[._])ratio([._]|$)/.test(f.name ?? '');
}

const finiteRuns = (x) =>
  typeof x === 'object' && x !== null && Array.isArray(x.runs) ? x.runs.filter((v) => Number.isFinite(v) && v > 0) : [];

/** Runs a half (before or after the bench) needs for its own median to count: fewer are too noisy. */
const MIN_HALF_RUNS = 5;

/**
 * The medians of a reference's (or a part's) runs: all of them, and the halves before and after
 * the bench when known and each of at least MIN_HALF_RUNS runs (the whole command's 5 and 5; the
 * parts' 3 and 3 count only together).
 */
function medians(part) {
  const runs = finiteRuns(part);
  if (runs.length === 0) return [];
  const all = median(runs);
  const n = part.before;
  const halves =
    Number.isInteger(n) && n >= MIN_HALF_RUNS && runs.length - n >= MIN_HALF_RUNS && runs.length === part.runs.length;
  return halves ? [all, median(runs.slice(0, n)), median(runs.slice(n))] : [all];
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Every ratio of a time now to the same time then that two parts give (medians and halves). */
function ratios(now, before) {
  const a = medians(now);
  const b = medians(before);
  if (a.length === 0 || b.length === 0) return [];
  return a.flatMap((x) => b.map((y) => x / y));
}

/**
 * The machine's change of speed between two references ({ version, ms, runs, before?, parts? } of
 * bench-reference.mjs): { low, high, parts } where low and high are the lowest and highest ratio of
 * a time now to the same time then (2 = twice as slow now) over the whole command and every part
 * that both have, each by all its runs and by the halves before and after the bench, and parts maps
 * each compared reading to its ratio of medians. Undefined when either reference is missing,
 * damaged or of another version of the work.
 */
export function machineRange(now, before) {
  const ok = (r) =>
    typeof r === 'object' && r !== null && typeof r.ms === 'number' && Number.isFinite(r.ms) && r.ms > 0;
  if (!ok(now) || !ok(before) || now.version !== before.version) return undefined;
  // an older reference kept only its median: its runs are the median alone
  const whole = (r) => (finiteRuns(r).length > 0 ? r : { runs: [r.ms] });
  const found = [['whole', ratios(whole(now), whole(before))]];
  const p = now.parts;
  const q = before.parts;
  if (typeof p === 'object' && p !== null && typeof q === 'object' && q !== null && p.version === q.version) {
    for (const name of COMPARED_PARTS) found.push([name, ratios(p[name], q[name])]);
  }
  const all = found.flatMap(([, rs]) => rs);
  const parts = Object.fromEntries(found.filter(([, rs]) => rs.length > 0).map(([name, rs]) => [name, round2(rs[0])]));
  return { low: round2(Math.min(...all)), high: round2(Math.max(...all)), parts };
}

/** The parts of a reference compared between runs (bench-reference.mjs COMPARED_PARTS; fault is not). */
const COMPARED_PARTS = ['start', 'startCpu', 'cold', 'warm', 'warmCpu', 'sqlite', 'spawn', 'spawnCpu'];

const round2 = (x) => Math.round(x * 100) / 100;

/**
 * The judgement of a figure of time whose value moved by `ratio` (now over then, turned so that
 * above 1 is worse) on a machine whose change was `machine` ({ low, high }; undefined: none), with
 * the share `band` (WORSE_LIMIT, or the figure's spread when larger) allowed on top of it: true
 * (worse beyond the band and the slowest reading), false (within WORSE_LIMIT of the reading
 * nearest to no change) or null (not judged: the machine's change or the figure's own spread
 * explains it either way).
 * See the comment at the top.
 */
export function judgeTime(ratio, machine, band = WORSE_LIMIT) {
  const nearest = machine === undefined ? 1 : Math.min(Math.max(1, machine.low), machine.high);
  const slowest = machine === undefined ? 1 : Math.max(1, machine.high);
  if (ratio > (1 + Math.max(WORSE_LIMIT, band)) * slowest) return true;
  // within the limit of no change (or the nearest reading): not worse; a change past the limit
  // but within the figure's own spread is neither shown worse nor passed as not worse
  if (ratio <= (1 + WORSE_LIMIT) * nearest) return false;
  return null;
}

/** True when a machine's change is within the limit by every reading: it did not change. */
export function machineSteady(m) {
  return m !== undefined && m.low >= 1 / (1 + WORSE_LIMIT) && m.high <= 1 + WORSE_LIMIT;
}

/** A figure's own spread (relative, finite, not negative), or 0 when it has none. */
function spreadOf(f) {
  return typeof f?.spread === 'number' && Number.isFinite(f.spread) && f.spread >= 0 ? f.spread : 0;
}

/**
 * The judgement of a plain change turned so that above 0 is worse: worse past `band` (the limit or
 * the figure's spread), not worse within the limit, not judged (null) in between.
 */
function plainJudgement(worseBy, band) {
  if (worseBy > band) return true;
  return worseBy <= WORSE_LIMIT ? false : null;
}

/** The reason a figure gives for not being judged, or undefined. */
function unjudgedOf(f) {
  return typeof f?.unjudged === 'string' && f.unjudged !== '' ? f.unjudged : undefined;
}

/**
 * The comparison of `now` with `before` (a figure of the earlier run with the same name and
 * bench, or undefined) run at `at` under the load average `load`, on a machine whose change
 * since then is `machine` (machineRange; undefined when unknown): { value, at, load, change, worse }
 * where change is the relative change of the value (0.1 = 10 % higher) and worse is true when it
 * moved the wrong way by more than WORSE_LIMIT, null when it cannot be judged (the direction is
 * unknown, the earlier value is 0, or the machine's change explains it either way); with `machine`
 * besides ({ low, high }) when the figure is one of time, not paired, and the machine changed;
 * `spread` (the band used in place of WORSE_LIMIT) when either figure states one; `unjudged` (the
 * reason, worse null) when the figure says it cannot be judged. Undefined without an earlier figure.
 */
export function compareFigure(now, before, at, load, machine) {
  if (before === undefined || typeof before.value !== 'number' || !Number.isFinite(before.value)) return undefined;
  const compared =
    now.unit === '%' ? comparePercent(now, before, at, load) : compareValue(now, before, at, load, machine);
  const reason = unjudgedOf(now);
  return reason === undefined ? compared : { ...compared, worse: null, unjudged: reason };
}

/** compareFigure for a figure that is not a percentage. */
function compareValue(now, before, at, load, machine) {
  const change = before.value === 0 ? null : (now.value - before.value) / Math.abs(before.value);
  const direction = betterDirection(now);
  const spread = Math.max(spreadOf(now), spreadOf(before));
  const base = { value: before.value, at: at ?? null, load: load ?? null, change, ...(spread > 0 ? { spread } : {}) };
  if (change === null || direction === null) return { ...base, worse: null };
  const band = Math.max(WORSE_LIMIT, spread);
  const plain = plainJudgement(direction === 'lower' ? change : -change, band);
  const timed = !isPaired(now) && (SLOWER_RAISES.has(now.unit) || SLOWER_LOWERS.has(now.unit));
  if (!timed || machine === undefined || machineSteady(machine)) return { ...base, worse: plain };
  // the value's ratio turned so that above 1 is slower; a value that changed sign is judged plainly
  const r = now.value / before.value;
  const slower = SLOWER_RAISES.has(now.unit) ? r : 1 / r;
  const m = { low: machine.low, high: machine.high };
  if (!(slower > 0) || !Number.isFinite(slower)) return { ...base, worse: plain, machine: m };
  // a figure better when higher though it is a time (or the reverse) turns the machine round too
  const turned = (SLOWER_RAISES.has(now.unit) ? 'lower' : 'higher') === direction;
  const worse = turned ? judgeTime(slower, m, band) : judgeTime(1 / slower, { low: 1 / m.high, high: 1 / m.low }, band);
  return { ...base, worse, machine: m };
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
    const machine = machineRange(references.get(f.bench), b?.reference);
    const previous = compareFigure(f, old.get(key(f)), typeof at === 'string' ? at : undefined, load, machine);
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

/** "×0.42–0.69" (or "×0.9" when both ends are equal): a machine's change. */
export function formatMachine(m) {
  return m.low === m.high ? `×${m.low}` : `×${m.low}–${m.high}`;
}

/**
 * The "before" cell of a compared figure: "10 (+20.0 %)", with the machine's change when it moved
 * ("; machine ×0.42–0.69"), the figure's spread when it has one ("; spread 41 %"), and "not judged"
 * when these explain the figure either way, or with the figure's reason when it cannot be judged.
 */
export function formatPrevious(p) {
  const change = typeof p.points === 'number' ? formatPoints(p.points) : formatChange(p.change);
  const m = typeof p.machine === 'object' && p.machine !== null ? p.machine : undefined;
  // a comparison kept from a results file of before the ranges: one factor and the change after it
  const old = typeof p.machine === 'number' ? `; machine ×${p.machine}: ${formatChange(p.adjusted)} after it` : '';
  const machine = m === undefined ? old : `; machine ${formatMachine(m)}`;
  const spread = typeof p.spread === 'number' ? `; spread ${Math.round(p.spread * 100)} %` : '';
  const reason = typeof p.unjudged === 'string' ? `; not judged: ${p.unjudged}` : '';
  const unexplained = reason === '' && p.worse === null && (m !== undefined || spread !== '') ? ': not judged' : '';
  return `${p.value} (${change}${machine}${spread}${unexplained}${reason})${p.worse ? ' ⚠' : ''}`;
}

/** "+11.7 points" / "−0.3 points" / "±0 points" for a change of a percentage. */
export function formatPoints(points) {
  const r = Math.round(points * 10) / 10;
  if (r === 0) return '±0 points';
  return `${r > 0 ? '+' : '−'}${Math.abs(r).toFixed(1)} points`;
}
