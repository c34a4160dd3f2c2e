// What a user waits for: whole `flightrec` commands, as typed (Node's start and module loading
// included, output read from a pipe), each paired in the same run with its baseline, the two
// alternating (bench/lib/alternation.ts): median, minimum and maximum of wall and CPU time.
// Run: node scripts/bench.mjs bench/cli.bench.ts   (needs the built CLI: npm run build; and jq)
//
// Recording (bench/lib/cli-recording.ts): the simulated cluster, incident scenario, 10,000
// connections, 100 polls 30 s apart; every answer saved as a file byte for byte as the server sent
// it (about 12 MB each, what an operator's script keeps for jq) and written into SQLite as the
// collector does. CLI_BENCH_DIR=DIR keeps the recording there and reuses it on the next run.
//
// Pairs (flightrec / baseline), each checked to give the same answer before it is timed:
//   at_json      query connections --at (last poll) --filter 'node_id = 1' -o json
//                / jq '[.connections[] | select(.nodeId == 1)]' over the last saved answer
//   at_table     the same query as a table / jq -r … | @tsv of the same rows
//   history      one connection's history over the 100 polls (query --since --until --filter uid)
//                / jq over the 100 files
//   top_clients  trends produce-bytes --by client --top 10 over 10 minutes / jq over the 21 files
//                of the window, with trends' arithmetic (the program of bench/baseline.bench.ts)
//   version      flightrec --version / node -e 0 (Node's own start: the floor)
//   nothing      a query that matches nothing / node -e 0
// CLI_BENCH_FLIGHTREC=OTHER/bin/flightrec.js times another build (a checkout before a change; scripts/bench.mjs then records nothing)
// and leaves the docs table alone. Runs: CLI_BENCH_RUNS (default 7) per side; the pairs whose jq takes tens of seconds
// (history, top_clients) CLI_BENCH_SLOW_RUNS (default 3). Without jq, its pairs are skipped
// with a message and only flightrec's side is timed.
//
// The bench writes the "what you wait for" table of docs/performance.md (between its markers).
import { deepStrictEqual, ok } from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTimestamp } from '../src/api/codec/timestamp.ts';
import { alternate, repeat, runOnce, type Command, type Timings } from './lib/alternation.ts';
import { cliRecording, type CliRecording } from './lib/cli-recording.ts';
import { reportFigure, round } from './lib/figures.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const docFile = join(root, 'docs', 'performance.md');
const WAIT_START = '<!-- wait:start -->';
const WAIT_END = '<!-- wait:end -->';
const RUNS = Number(process.env.CLI_BENCH_RUNS ?? 7);
const SLOW_RUNS = Number(process.env.CLI_BENCH_SLOW_RUNS ?? 3);
const NODE = 1;
const TOP = 10;
/** top_clients' window: polls 60 to 80, 10 minutes */
const WINDOW = { from: 60, to: 80 } as const;
const log = (s: string): void => void process.stderr.write(`${s}\n`);
const loads: number[] = [loadavg()[0]!];

/** q3 of bench/baseline.bench.ts: top clients by produced bytes, trends' arithmetic, over the files given (`jq -n`). */
const JQ_TOP_CLIENTS = `[foreach inputs as $f (-1; . + 1; . as $i | $f.connections[]
  | {u: .uid, i: $i, c: .clientId, o: .openTime, v: (.totalRequestStatistics.produceBytes | tonumber)})]
| group_by(.u)
| map(. as $s | range(0; length) as $k | $s[$k]
    | {c, d: (if $k == 0 then (if .i > 0 and .o > $times[.i - 1] then .v else 0 end)
              else .v as $v | $s[$k - 1].v as $l | if $v >= $l then $v - $l else $v end end)})
| group_by(.c) | map({key: .[0].c, value: (map(.d) | add)}) | sort_by([-.value, .key]) | .[:${TOP}][] | "\\(.key) \\(.value)"`;
const JQ_AT_JSON = `[.connections[] | select(.nodeId == ${NODE})]`;
const JQ_AT_TABLE = `.connections[] | select(.nodeId == ${NODE}) | [.uid, .nodeId, .clientId, .authenticationInfo.userPrincipal, .state, .groupId] | @tsv`;

function jqPath(): string | undefined {
  for (const candidate of ['jq', '/usr/bin/jq']) {
    const r = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (!r.error && r.status === 0) return candidate;
  }
  return undefined;
}

/** One row of the "what you wait for" table and its figures. */
interface Pair {
  readonly key: string;
  readonly question: string;
  readonly flightrec: string;
  readonly baseline: string;
  readonly mine: Timings;
  readonly theirs?: Timings;
  /** the goal on flightrec's median wall time, ms */
  readonly goalMs?: number;
  /** the goal on the ratio baseline / flightrec (median wall) */
  readonly goalRatio?: number;
}

const fmt = (t: Timings): string =>
  `median ${round(t.wall.median, 0)} ms (min ${round(t.wall.min, 0)}, max ${round(t.wall.max, 0)}), CPU ${round(t.cpu.median, 0)} ms, ${t.runs} runs`;
const ratioOf = (p: Pair): number | undefined =>
  p.theirs === undefined ? undefined : p.theirs.wall.median / p.mine.wall.median;
const roundRatio = (r: number): number => round(r, r >= 100 ? 0 : r >= 10 ? 1 : 2);

function report(p: Pair, load: string): void {
  reportFigure({
    name: `cli.${p.key}_ms`,
    value: round(p.mine.wall.median, 1),
    unit: 'ms',
    ...(p.goalMs === undefined ? {} : { goal: { op: '<=', value: p.goalMs } }),
    note: `${p.flightrec}: ${fmt(p.mine)}; ${load}`,
  });
  if (p.theirs === undefined) return;
  reportFigure({
    name: `cli.${p.key}_baseline_ms`,
    value: round(p.theirs.wall.median, 1),
    unit: 'ms',
    note: `${p.baseline}: ${fmt(p.theirs)}`,
  });
  reportFigure({
    name: `cli.${p.key}_ratio`,
    value: roundRatio(ratioOf(p)!),
    unit: 'x',
    better: 'higher',
    ...(p.goalRatio === undefined ? {} : { goal: { op: '>=', value: p.goalRatio } }),
    note: 'baseline / flightrec, median wall times of the same alternating run, same answer',
  });
  reportFigure({
    name: `cli.${p.key}_cpu_ratio`,
    value: roundRatio(p.theirs.cpu.median / p.mine.cpu.median),
    unit: 'x',
    better: 'higher',
    note: 'baseline / flightrec, median CPU times (user + system of the command): less moved by the load of a shared machine',
  });
}

/** The "what you wait for" table: one row per pair. */
function waitTable(pairs: readonly Pair[], recording: CliRecording, load: string): string {
  const cell = (s: string): string => s.replace(/\|/g, '\\|');
  const ms = (t: Timings | undefined): string =>
    t === undefined ? 'skipped (no jq)' : `${round(t.wall.median, 0)} ms (CPU ${round(t.cpu.median, 0)} ms)`;
  const lines = [
    `Last run: ${new Date().toISOString()}, Node ${process.version}; ${recording.files.length} polls of about ${Math.round(recording.samples / recording.files.length)} connections (${round(recording.jsonBytes / recording.files.length / 1e6, 1)} MB per saved answer); ${load}. Medians of wall time, the two commands alternating in one run.`,
    '',
    '| question | flightrec command | flightrec | baseline | baseline time | ratio (wall) | ratio (CPU) | goal (wall) |',
    '|---|---|---:|---|---:|---:|---:|---|',
  ];
  for (const p of pairs) {
    const r = ratioOf(p);
    const goal =
      p.goalRatio !== undefined
        ? `≥ ${p.goalRatio}× ${r !== undefined && r >= p.goalRatio ? '✓' : '✗'}`
        : p.goalMs !== undefined
          ? `≤ ${p.goalMs} ms ${p.mine.wall.median <= p.goalMs ? '✓' : '✗'}`
          : '—';
    lines.push(
      `| ${cell(p.question)} | \`${cell(p.flightrec)}\` | ${ms(p.mine)} | \`${cell(p.baseline)}\` | ${ms(p.theirs)} | ${r === undefined ? '—' : `${roundRatio(r)}×`} | ${p.theirs === undefined ? '—' : `${roundRatio(p.theirs.cpu.median / p.mine.cpu.median)}×`} | ${goal} |`,
    );
  }
  return lines.join('\n');
}

function writeWaitTable(table: string): void {
  const doc = readFileSync(docFile, 'utf8');
  const start = doc.indexOf(WAIT_START);
  const end = doc.indexOf(WAIT_END);
  if (start === -1 || end < start)
    throw new Error(`docs/performance.md needs the markers ${WAIT_START} and ${WAIT_END}`);
  writeFileSync(docFile, `${doc.slice(0, start + WAIT_START.length)}\n${table}\n${doc.slice(end)}`);
}

const lines = (s: string): string[] => s.split('\n').filter((l) => l !== '');

// --- the run ----------------------------------------------------------------------------------

if (!existsSync(join(root, 'dist', 'cli.js'))) throw new Error('the CLI is not built: run npm run build first');
const jq = jqPath();
if (jq === undefined) log('jq not found: the pairs with jq are skipped, only flightrec is timed (apt-get install jq)');
/** another build's bin/flightrec.js to time instead (a checkout before a change); the docs table is then left alone */
const other = process.env.CLI_BENCH_FLIGHTREC;
const bin = other !== undefined ? resolve(other) : join(root, 'bin', 'flightrec.js');
const keep = process.env.CLI_BENCH_DIR;
const dir = keep !== undefined ? resolve(keep) : join(root, 'tmp', `cli-bench-${process.pid}`);
try {
  const recording = await cliRecording(
    dir,
    { connections: 10_000, polls: 100, intervalS: 30, scenario: 'incident', seed: 42 },
    log,
  );
  log(`recording: made in ${round(recording.seconds, 0)} s`);
  const times = recording.times.map((t) => BigInt(t));
  const last = times.length - 1;
  const at = formatTimestamp(times[last]!);
  const flightrec = (...args: string[]): Command => ({
    cmd: process.execPath,
    args: [bin, '--db', 'flightrec.db', ...args],
    cwd: dir,
  });
  const shown = (c: Command): string =>
    `flightrec ${c.args
      .slice(1)
      .map((a) => (/[\s"'*]/.test(a) ? `'${a}'` : a))
      .join(' ')}`;
  const jqCmd = (...args: string[]): Command => ({ cmd: jq ?? 'jq', args, cwd: dir });
  const nodeStart: Command = { cmd: process.execPath, args: ['-e', '0'], cwd: dir };
  const pair = (
    key: string,
    question: string,
    mine: Command,
    theirs: Command | undefined,
    baseline: string,
    runs: number,
    goals: { goalMs?: number; goalRatio?: number },
    warm = false,
  ): Pair => {
    const shownMine = shown(mine);
    if (theirs === undefined) {
      log(`${key}: jq missing, the pair is skipped; flightrec alone`);
      return { key, question, flightrec: shownMine, baseline, mine: repeat(mine, runs), ...goals };
    }
    const t = alternate(mine, theirs, runs, warm);
    log(`${key}: flightrec ${fmt(t.a)}; ${baseline}: ${fmt(t.b)}; load average ${loadavg()[0]!.toFixed(1)}`);
    loads.push(loadavg()[0]!);
    return { key, question, flightrec: shownMine, baseline, mine: t.a, theirs: t.b, ...goals };
  };
  const pairs: Pair[] = [];

  // --- as of the last poll: connections on node 1, JSON and table
  const filter = `node_id = ${NODE}`;
  const atJson = flightrec('query', 'connections', '--at', at, '--filter', filter, '-o', 'json');
  const atTable = flightrec('query', 'connections', '--at', at, '--filter', filter);
  const lastFile = recording.files[last]!;
  const mineRows = (JSON.parse(runOnce(atJson).out) as { rows: { uid: string }[] }).rows.map((r) => r.uid);
  ok(mineRows.length > 0, 'the as-of query selects some connections');
  const tableRows = lines(runOnce(atTable).out).length - 1;
  ok(tableRows === mineRows.length, `the table has a row per connection (${tableRows} of ${mineRows.length})`);
  if (jq !== undefined) {
    const theirs = (JSON.parse(runOnce(jqCmd(JQ_AT_JSON, lastFile)).out) as { uid: string }[]).map((r) => r.uid);
    deepStrictEqual([...mineRows].sort(), [...theirs].sort(), 'at_json: jq and flightrec select the same connections');
    const tsv = lines(runOnce(jqCmd('-r', JQ_AT_TABLE, lastFile)).out).map((l) => l.split('\t')[0]!);
    deepStrictEqual([...tsv].sort(), [...theirs].sort(), 'at_table: jq lists the same connections');
  }
  log(`as of ${at}: ${mineRows.length} connections on node ${NODE}`);
  pairs.push(
    pair(
      'at_json',
      `connections on node ${NODE} as of the last poll, JSON (${mineRows.length} rows)`,
      atJson,
      jq === undefined ? undefined : jqCmd(JQ_AT_JSON, lastFile),
      `jq '${JQ_AT_JSON}' ${lastFile}`,
      RUNS,
      { goalRatio: 3 },
    ),
  );
  pairs.push(
    pair(
      'at_table',
      `the same as a table`,
      atTable,
      jq === undefined ? undefined : jqCmd('-r', JQ_AT_TABLE, lastFile),
      `jq -r '${JQ_AT_TABLE}' ${lastFile}`,
      RUNS,
      { goalRatio: 3 },
    ),
  );

  // --- start-up: --version, and a query that matches nothing, against Node's own start
  const nothing = flightrec('query', 'connections', '--at', at, '--filter', 'node_id = 999', '-o', 'json');
  ok(
    (JSON.parse(runOnce(nothing).out) as { rows: unknown[] }).rows.length === 0,
    'the filter node_id = 999 matches nothing',
  );
  pairs.push(
    pair(
      'version',
      'flightrec --version',
      { cmd: process.execPath, args: [bin, '--version'], cwd: dir },
      nodeStart,
      'node -e 0',
      RUNS,
      { goalMs: 60 },
    ),
  );
  pairs.push(
    pair('nothing', 'a query that matches nothing (10,000 rows read)', nothing, nodeStart, 'node -e 0', RUNS, {
      goalMs: 200,
    }),
  );

  // --- one connection's history over the 100 polls
  const uid = recording.uid;
  const history = flightrec(
    'query',
    'connections',
    '--since',
    formatTimestamp(times[0]!),
    '--until',
    at,
    '--filter',
    `uid = "${uid}"`,
    '-o',
    'json',
  );
  const samples = (JSON.parse(runOnce(history).out) as { samples: unknown[] }).samples.length;
  ok(samples === times.length, `history: ${samples} samples of ${uid}, one per poll`);
  const jqHistory = `.connections[] | select(.uid == "${uid}")`;
  if (jq !== undefined) {
    const n = lines(runOnce(jqCmd('-c', jqHistory, ...recording.files)).out).length;
    ok(n === times.length, `history: jq finds ${n} samples`);
  }
  pairs.push(
    pair(
      'history',
      `one connection's history over ${times.length} polls`,
      history,
      jq === undefined ? undefined : jqCmd('-c', jqHistory, ...recording.files),
      `jq -c '.connections[] | select(.uid == "…")' over the ${times.length} files`,
      SLOW_RUNS,
      { goalRatio: 1000 },
      jq !== undefined, // both just ran for the check
    ),
  );

  // --- top clients by produced bytes over 10 minutes
  const win = Array.from({ length: WINDOW.to - WINDOW.from + 1 }, (_, k) => WINDOW.from + k);
  const since = formatTimestamp(times[WINDOW.from]!);
  const until = formatTimestamp(times[WINDOW.to]!);
  const top = flightrec(
    'trends',
    'produce-bytes',
    '--by',
    'client',
    '--since',
    since,
    '--until',
    until,
    '--top',
    String(TOP),
    '-o',
    'json',
  );
  const winTimes = JSON.stringify(win.map((i) => formatTimestamp(times[i]!)));
  const jqTop = jqCmd(
    '-n',
    '-r',
    '--argjson',
    'times',
    winTimes,
    JQ_TOP_CLIENTS,
    ...win.map((i) => recording.files[i]!),
  );
  const mineTop = (
    JSON.parse(runOnce(top).out) as { rows: { key: string; detail: { increase: string | number } }[] }
  ).rows.map((r) => `${r.key} ${String(r.detail.increase)}`);
  ok(mineTop.length === TOP, `top_clients: ${mineTop.length} clients`);
  if (jq !== undefined) {
    deepStrictEqual(
      mineTop,
      lines(runOnce(jqTop).out),
      'top_clients: jq and flightrec give the same clients and bytes',
    );
  }
  pairs.push(
    pair(
      'top_clients',
      `top ${TOP} clients by produced bytes over 10 minutes (${win.length} polls)`,
      top,
      jq === undefined ? undefined : jqTop,
      `jq -n (trends' arithmetic) over the ${win.length} files`,
      SLOW_RUNS,
      { goalRatio: 30 },
      jq !== undefined, // both just ran for the check
    ),
  );

  loads.push(loadavg()[0]!);
  const load = `load average ${loads.map((l) => l.toFixed(1)).join(' → ')}`;
  for (const p of pairs) report(p, load);
  if (other === undefined) {
    writeWaitTable(waitTable(pairs, recording, load));
    log('wrote the "what you wait for" table of docs/performance.md');
  } else log(`timed ${bin}: docs/performance.md left alone`);
} finally {
  if (keep === undefined) rmSync(dir, { recursive: true, force: true });
}
