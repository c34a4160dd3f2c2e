// Runs the benchmarks one after the other and records their figures.
//
//   node scripts/bench.mjs                      every bench/*.bench.ts, sorted
//   node scripts/bench.mjs bench/x.bench.ts     only the named files
//
// Each bench runs as `node --import tsx <file>`; its stderr is streamed, its stdout lines
// `FIGURE <json>` are collected. Results go to bench/results/latest.json (figures of benches not
// named this time are kept from the previous file) and to the table between the markers in
// docs/performance.md. Exit status 1 when a bench crashes or prints a bad FIGURE line; a
// missed goal only prints a warning.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const resultsFile = resolve(root, 'bench/results/latest.json');
const docFile = resolve(root, 'docs/performance.md');
const START = '<!-- figures:start -->';
const END = '<!-- figures:end -->';

function benchFiles(args) {
  if (args.length > 0) {
    return args.map((a) => {
      const file = resolve(a);
      if (!existsSync(file)) throw new Error(`no such bench file: ${a}`);
      return relative(root, file).split('\\').join('/');
    });
  }
  return readdirSync(resolve(root, 'bench'))
    .filter((f) => f.endsWith('.bench.ts'))
    .sort()
    .map((f) => `bench/${f}`);
}

function checkFigure(f) {
  const okGoal =
    f.goal === undefined ||
    (typeof f.goal === 'object' && f.goal !== null && ['<=', '>='].includes(f.goal.op) && Number.isFinite(f.goal.value));
  return typeof f.name === 'string' && f.name !== '' && Number.isFinite(f.value) && typeof f.unit === 'string' && okGoal;
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
        if (!checkFigure(f)) throw new Error('needs name, finite value, unit and a valid goal');
        const met = f.goal === undefined ? null : f.goal.op === '<=' ? f.value <= f.goal.value : f.value >= f.goal.value;
        figures.push({ name: f.name, value: f.value, unit: f.unit, goal: f.goal ?? null, met, note: f.note ?? null, bench: file });
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
  const lines = [
    `Last run: ${result.generatedAt}, Node ${result.node}, ${result.cpus} CPUs.`,
    '',
    '| figure | value | unit | goal | met | bench |',
    '|---|---:|---|---|:---:|---|',
  ];
  for (const f of result.figures) {
    const goal = f.goal ? `${f.goal.op} ${f.goal.value}` : '—';
    const met = f.met === null ? '—' : f.met ? '✓' : '✗';
    lines.push(`| \`${cell(f.name)}\` | ${f.value} | ${cell(f.unit)} | ${goal} | ${met} | \`${cell(f.bench)}\` |`);
  }
  return lines.join('\n');
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

function previousFigures() {
  try {
    return JSON.parse(readFileSync(resultsFile, 'utf8')).figures ?? [];
  } catch {
    return [];
  }
}

async function main() {
  const files = benchFiles(process.argv.slice(2));
  if (files.length === 0) throw new Error('no bench/*.bench.ts files found');
  const collected = [];
  const failures = [];
  for (const file of files) {
    process.stdout.write(`▶ ${file}\n`);
    const { figures, failure } = await runBench(file);
    collected.push(...figures);
    if (failure) {
      failures.push(`${file}: ${failure}`);
      process.stderr.write(`✗ ${file}: ${failure}\n`);
    }
  }
  // A partial run keeps the other benches' figures (if their files still exist); a full run
  // starts afresh.
  const ran = new Set(files);
  const partial = process.argv.length > 2;
  const kept = partial
    ? previousFigures().filter((f) => !ran.has(f.bench) && existsSync(resolve(root, f.bench)))
    : [];
  const figures = [...kept, ...collected].sort((a, b) => a.bench.localeCompare(b.bench));
  const result = { generatedAt: new Date().toISOString(), node: process.version, cpus: cpus().length, figures };
  mkdirSync(resolve(root, 'bench/results'), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(result, null, 2)}\n`);
  updateDoc(result);
  process.stdout.write(`wrote ${relative(root, resultsFile)} and ${relative(root, docFile)} (${figures.length} figures)\n`);
  for (const f of collected.filter((x) => x.met === false)) {
    process.stderr.write(`warning: ${f.name} = ${f.value} ${f.unit} misses its goal ${f.goal.op} ${f.goal.value} (${f.bench})\n`);
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
