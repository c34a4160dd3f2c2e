// Runs the benchmarks one after the other and records their figures.
//
//   node scripts/bench.mjs                      every bench/*.bench.ts, sorted, the PostgreSQL ones
//                                               (*-pg.bench.ts) last
//   node scripts/bench.mjs bench/x.bench.ts     only the named files
//   node scripts/bench.mjs --list               the bench files a run would take, and exit
//   node scripts/bench.mjs --budget 10 [files]  warn when the run takes longer than 10 minutes
//                                               (default 10; also BENCH_BUDGET_MIN)
//   node scripts/bench.mjs --dry-run [files]    print the figures, record nothing (also when
//                                               CLI_BENCH_FLIGHTREC times another build)
//
// Each bench runs as `node --import tsx <file>`; its stderr is streamed, its stdout lines
// `FIGURE <json>` are collected. Results go to bench/results/latest.json (figures of benches not
// named this time are kept from the previous file) and to the table between the markers in
// docs/performance.md. Exit status 1 when a bench crashes or prints a bad FIGURE line; a
// missed goal, or a run over the time budget, only prints a warning. Each bench's duration and
// the load average are printed, and kept in latest.json (`benches`, next to `figures`).
// Each figure is compared with the same figure of the previous latest.json (bench-compare.mjs):
// the change is kept with it and shown in the table, and a figure worse by more than 5 % is
// printed as a warning at the end. Before each bench and again after it, the machine's own speed
// is measured (bench-reference.mjs, about 4 s each time: a fixed work timed as a whole command five
// times, and its parts, a process's start, the work cold and warm and SQLite in memory, in three
// more processes, and `node -e 0` spawned seven times), kept with the bench's run
// (`benches[].reference`). A figure of time is then judged against the range of the machine's
// change since the previous run over all these readings: a warning only when no reading explains
// it, "not judged" in the table when one does, and the plain change when the machine did not change
// or was not measured then. Figures that are ratios of two things timed in the same run (unit x,
// *_ratio) are judged on their plain change. A FIGURE line may also give `spread` (how far the
// bench's own runs of it spread, relative: a change within it is not judged) and `unjudged` (why
// its change cannot be judged: shown, never warned about).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  WORSE_LIMIT,
  formatChange,
  formatMachine,
  formatPoints,
  formatPrevious,
  withPrevious,
} from './bench-compare.mjs';
import { describeParts, joinReferences, measureReference } from './bench-reference.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const resultsFile = resolve(root, 'bench/results/latest.json');
const docFile = resolve(root, 'docs/performance.md');
const START = '<!-- figures:start -->';
const END = '<!-- figures:end -->';

/** Splits the arguments into options and bench files. */
function parseArgs(argv) {
  const opts = {
    list: false,
    // figures of another build (bench/cli.bench.ts's CLI_BENCH_FLIGHTREC) are not this checkout's
    dryRun: process.env.CLI_BENCH_FLIGHTREC !== undefined,
    budgetMin: Number(process.env.BENCH_BUDGET_MIN ?? 10),
    files: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--list') opts.list = true;
    else if (a === '--dry-run') opts.dryRun = true;
    else if (a === '--budget' || a.startsWith('--budget=')) {
      const v = a === '--budget' ? argv[++i] : a.slice('--budget='.length);
      opts.budgetMin = Number(v);
    } else if (a.startsWith('--'))
      throw new Error(`unknown option ${a} (expected --list, --dry-run or --budget MINUTES)`);
    else opts.files.push(a);
  }
  if (!(opts.budgetMin > 0)) throw new Error('--budget needs a number of minutes above 0');
  return opts;
}

const load1 = () => Math.round(loadavg()[0] * 10) / 10;
const duration = (s) => (s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${s.toFixed(1)} s`);

function benchFiles(args) {
  if (args.length > 0) {
    return args.map((a) => {
      const file = resolve(a);
      if (!existsSync(file)) throw new Error(`no such bench file: ${a}`);
      return relative(root, file).split('\\').join('/');
    });
  }
  // the PostgreSQL benches (*-pg.bench.ts) run after the others: they need a server (and report
  // themselves as skipped without one), and the fleet bench records in real time for 10 minutes
  const pg = (f) => (f.endsWith('-pg.bench.ts') ? 1 : 0);
  return readdirSync(resolve(root, 'bench'))
    .filter((f) => f.endsWith('.bench.ts'))
    .sort((a, b) => pg(a) - pg(b) || (a < b ? -1 : a > b ? 1 : 0))
    .map((f) => `bench/${f}`);
}

function checkFigure(f) {
  const okGoal =
    f.goal === undefined ||
    (typeof f.goal === 'object' &&
      f.goal !== null &&
      ['<=', '>='].includes(f.goal.op) &&
      Number.isFinite(f.goal.value));
  const okBetter = f.better === undefined || f.better === 'lower' || f.better === 'higher';
  const okSpread = f.spread === undefined || (Number.isFinite(f.spread) && f.spread >= 0);
  const okUnjudged = f.unjudged === undefined || (typeof f.unjudged === 'string' && f.unjudged !== '');
  return (
    okBetter &&
    okSpread &&
    okUnjudged &&
    typeof f.name === 'string' &&
    f.name !== '' &&
    Number.isFinite(f.value) &&
    typeof f.unit === 'string' &&
    okGoal
  );
}

/** Runs one bench; resolves to { figures, failure } where failure is a message or null. */
function runBench(file) {
  return new Promise((done) => {
    const figures = [];
    const problems = [];
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let pending = '';
    const takeLine = (line) => {
      if (!line.startsWith('FIGURE ')) {
        if (line !== '') process.stdout.write(`  ${line}\n`);
        return;
      }
      try {
        const f = JSON.parse(line.slice('FIGURE '.length));
        if (!checkFigure(f)) {
          throw new Error(
            "needs name, finite value, unit, and if any a valid goal, better 'lower' or 'higher', a spread of 0 or more, an unjudged reason",
          );
        }
        const met =
          f.goal === undefined ? null : f.goal.op === '<=' ? f.value <= f.goal.value : f.value >= f.goal.value;
        figures.push({
          name: f.name,
          value: f.value,
          unit: f.unit,
          goal: f.goal ?? null,
          met,
          note: f.note ?? null,
          ...(f.better === undefined ? {} : { better: f.better }),
          ...(f.spread === undefined ? {} : { spread: f.spread }),
          ...(f.unjudged === undefined ? {} : { unjudged: f.unjudged }),
          bench: file,
        });
        const goal = f.goal === undefined ? '' : ` (goal ${f.goal.op} ${f.goal.value}: ${met ? 'met' : 'MISSED'})`;
        process.stdout.write(`  ${f.name} = ${f.value} ${f.unit}${goal}\n`);
      } catch (err) {
        problems.push(`bad FIGURE line (${err.message}): ${line}`);
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(takeLine);
    });
    child.on('error', (err) => problems.push(`could not start: ${err.message}`));
    child.on('close', (code, signal) => {
      takeLine(pending);
      if (code !== 0) problems.push(signal ? `killed by ${signal}` : `exited with status ${code}`);
      done({ figures, failure: problems.length > 0 ? problems.join('; ') : null });
    });
  });
}

function cell(text) {
  return String(text).replace(/\|/g, '\\|');
}

function renderTable(result) {
  const took =
    result.totalSeconds === undefined
      ? ''
      : ` Took ${duration(result.totalSeconds)} (load average ${result.loadAverage.join(' → ')}).`;
  const lines = [`Last run: ${result.generatedAt}, Node ${result.node}, ${result.cpus} CPUs.${took}`];
  const older = olderRuns(result);
  if (older.length > 0) {
    lines.push(
      '',
      `Rows kept from earlier runs (a run of some benches only keeps the others' figures): ${older.join('; ')}.`,
    );
  }
  lines.push(
    '',
    `"Before" is the same figure in the run before this bench's (its change; ⚠ worse by more than ${WORSE_LIMIT * 100} %). ` +
      `"Machine ×a–b": a fixed work and its parts, timed before and after the bench (scripts/bench-reference.mjs), took a to b times as long as at that run; ` +
      `a figure of time is ⚠ only when it is worse beyond all of them, and "not judged" when the machine's change may explain it. ` +
      `"Spread": how far the bench's own runs of the figure spread; a change within it is not judged.`,
    '',
    '| figure | value | unit | goal | met | before | bench |',
    '|---|---:|---|---|:---:|---:|---|',
  );
  for (const f of result.figures) {
    const goal = f.goal ? `${f.goal.op} ${f.goal.value}` : '—';
    const met = f.met === null ? '—' : f.met ? '✓' : '✗';
    const p = f.previous;
    const before = p ? formatPrevious(p) : '—';
    lines.push(
      `| \`${cell(f.name)}\` | ${f.value} | ${cell(f.unit)} | ${goal} | ${met} | ${before} | \`${cell(f.bench)}\` |`,
    );
  }
  return lines.join('\n');
}

/** The benches whose figures a partial run kept from earlier runs, grouped by the time of their own run. */
function olderRuns(result) {
  if (result.ran === undefined) return [];
  const ran = new Set(result.ran);
  const byTime = new Map();
  for (const b of result.benches ?? []) {
    if (ran.has(b.file)) continue;
    const at = b.at ?? 'a time not recorded';
    byTime.set(at, [...(byTime.get(at) ?? []), `\`${cell(b.file)}\``]);
  }
  return [...byTime].sort(([x], [y]) => x.localeCompare(y)).map(([at, files]) => `${at}: ${files.join(', ')}`);
}

function updateDoc(result) {
  if (!existsSync(docFile)) throw new Error(`${relative(root, docFile)} is missing`);
  const doc = readFileSync(docFile, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start === -1 || end === -1 || end < start) {
    throw new Error(`${relative(root, docFile)} needs the markers ${START} and ${END}`);
  }
  const updated = `${doc.slice(0, start + START.length)}\n${renderTable(result)}\n${doc.slice(end)}`;
  writeFileSync(docFile, updated);
}

function previous() {
  try {
    const parsed = JSON.parse(readFileSync(resultsFile, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const earlier = previous();
  const files = benchFiles(opts.files);
  if (files.length === 0) throw new Error('no bench/*.bench.ts files found');
  if (opts.list) {
    for (const f of files) process.stdout.write(`${f}\n`);
    return;
  }
  const collected = [];
  const failures = [];
  const benches = [];
  const loads = [load1()];
  const started = performance.now();
  const references = new Map();
  for (const file of files) {
    const ahead = measureReference();
    const parts = describeParts(ahead?.parts);
    const refText = ahead === undefined ? 'failed' : `${ahead.ms} ms${parts === '' ? '' : `; ${parts}`}`;
    process.stdout.write(`▶ ${file} (load average ${load1()}; the machine's reference work ${refText})\n`);
    const t0 = performance.now();
    const { figures, failure } = await runBench(file);
    const seconds = Math.round((performance.now() - t0) / 100) / 10;
    const reference = joinReferences(ahead, measureReference());
    if (reference !== undefined) references.set(file, reference);
    benches.push({
      file,
      at: new Date().toISOString(),
      seconds,
      ok: failure === null,
      loadAverage: Number(load1()),
      ...(reference === undefined ? {} : { reference }),
    });
    process.stdout.write(`  ${failure ? '✗' : '✓'} ${file} took ${duration(seconds)}\n`);
    collected.push(...figures);
    if (failure) {
      failures.push(`${file}: ${failure}`);
      process.stderr.write(`✗ ${file}: ${failure}\n`);
    }
  }
  const totalSeconds = Math.round((performance.now() - started) / 100) / 10;
  loads.push(load1());
  // A partial run keeps the other benches' figures (if their files still exist); a full run
  // starts afresh.
  const ran = new Set(files);
  const partial = opts.files.length > 0;
  const before = partial ? earlier : {};
  const compared = withPrevious(collected, earlier, references);
  const kept = partial
    ? (Array.isArray(before.figures) ? before.figures : []).filter(
        (f) => !ran.has(f.bench) && existsSync(resolve(root, f.bench)),
      )
    : [];
  const keptBenches = partial
    ? (Array.isArray(before.benches) ? before.benches : []).filter(
        (b) => !ran.has(b.file) && existsSync(resolve(root, b.file)),
      )
    : [];
  const figures = [...kept, ...compared].sort((a, b) => a.bench.localeCompare(b.bench));
  const result = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    ...(partial ? { ran: files } : { totalSeconds, loadAverage: loads }),
    benches: [...keptBenches, ...benches].sort((a, b) => a.file.localeCompare(b.file)),
    figures,
  };
  if (opts.dryRun) {
    process.stdout.write(`dry run: ${collected.length} figures printed, nothing recorded\n`);
  } else {
    mkdirSync(resolve(root, 'bench/results'), { recursive: true });
    writeFileSync(resultsFile, `${JSON.stringify(result, null, 2)}\n`);
    updateDoc(result);
    process.stdout.write(
      `wrote ${relative(root, resultsFile)} and ${relative(root, docFile)} (${figures.length} figures)\n`,
    );
  }
  process.stdout.write(
    `${files.length} bench file(s) in ${duration(totalSeconds)}; load average ${loads.join(' → ')}\n`,
  );
  if (totalSeconds > opts.budgetMin * 60) {
    const slow = [...benches]
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, 3)
      .map((b) => `${b.file} ${duration(b.seconds)}`);
    process.stderr.write(
      `warning: the run took ${duration(totalSeconds)}, over its budget of ${opts.budgetMin} min; slowest: ${slow.join(', ')}\n`,
    );
  }
  for (const f of collected.filter((x) => x.met === false)) {
    process.stderr.write(
      `warning: ${f.name} = ${f.value} ${f.unit} misses its goal ${f.goal.op} ${f.goal.value} (${f.bench})\n`,
    );
  }
  const worse = compared.filter((f) => f.previous?.worse === true);
  const judged = compared.filter((f) => f.previous !== undefined && f.previous.worse !== null).length;
  const unjudged = compared.filter(
    (f) => f.previous?.worse === null && f.previous.machine !== undefined && f.previous.unjudged === undefined,
  );
  const declined = compared.filter((f) => typeof f.previous?.unjudged === 'string');
  // on a steady machine, a change past the limit but within the figure's own spread
  const noisy = compared.filter(
    (f) =>
      f.previous?.worse === null &&
      f.previous.machine === undefined &&
      typeof f.previous.spread === 'number' &&
      f.previous.unjudged === undefined,
  );
  const ranges = unjudged.map((f) => f.previous.machine);
  const span =
    ranges.length === 0
      ? ''
      : formatMachine({ low: Math.min(...ranges.map((m) => m.low)), high: Math.max(...ranges.map((m) => m.high)) });
  process.stdout.write(
    `against the previous run: ${judged} figure(s) compared, ${worse.length} worse by more than ${WORSE_LIMIT * 100} %` +
      (unjudged.length > 0
        ? `; ${unjudged.length} figure(s) of time not judged: the machine changed by ${span} since, which explains them either way`
        : '') +
      (noisy.length > 0 ? `; ${noisy.length} figure(s) not judged: within their own runs' spread` : '') +
      (declined.length > 0
        ? `; ${declined.length} figure(s) not judged by their bench's word (the reason below)`
        : '') +
      '\n',
  );
  for (const f of [...unjudged, ...noisy, ...declined]) {
    process.stdout.write(`  not judged: ${f.name} = ${f.value} ${f.unit}, before ${formatPrevious(f.previous)}\n`);
  }
  for (const f of worse) {
    const p = f.previous;
    const machine = p.machine === undefined ? '' : `; the machine ${formatMachine(p.machine)}`;
    process.stderr.write(
      `warning: ${f.name} = ${f.value} ${f.unit} is worse than the previous run's ${p.value} (${typeof p.points === 'number' ? formatPoints(p.points) : formatChange(p.change)}${machine}, ${f.bench}, run at ${p.at} under load ${p.load ?? '?'}; load now ${benches.find((b) => b.file === f.bench)?.loadAverage ?? '?'})\n`,
    );
  }
  if (failures.length > 0) {
    process.stderr.write(`${failures.length} bench file(s) failed:\n  ${failures.join('\n  ')}\n`);
    process.exitCode = 1;
  }
}

main().catch((err) => {
  process.stderr.write(`bench: ${err.message}\n`);
  process.exitCode = 1;
});
