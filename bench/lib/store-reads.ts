// The read half of bench/store.bench.ts, run in a process of its own: the state of all
// connections as of T, cold (a fresh reader per run) and warm (one reader scrubbing between two
// instants). Readers are their own processes in flightrec (`query`, `browse`, `report`), not the
// collector that wrote the history, so this process opens the finished database and only reads.
//
// Run: node --import tsx bench/lib/store-reads.ts DB AT OTHER   (instants in ns since the epoch)
// Prints one JSON line on stdout: { expected, cold, warm }, each timing { wall, cpu, p90, min }.
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { timeIt } from './figures.ts';

/** Wall-clock timing (timeIt) plus the median CPU time of the timed runs, in milliseconds. */
export interface ReadTiming {
  wall: number;
  cpu: number;
  p90: number;
  min: number;
}

function bench(fn: () => unknown, warmup: number, runs: number): ReadTiming {
  const cpu: number[] = [];
  const t = timeIt(
    () => {
      const c = process.cpuUsage();
      fn();
      const d = process.cpuUsage(c);
      cpu.push((d.user + d.system) / 1000);
    },
    { warmup, runs },
  );
  const timed = cpu.slice(warmup).sort((a, b) => a - b);
  const m = timed.length >> 1;
  return { wall: t.medianMs, cpu: timed.length % 2 === 1 ? timed[m]! : (timed[m - 1]! + timed[m]!) / 2, p90: t.p90Ms, min: t.minMs };
}

const [path, atText, otherText] = process.argv.slice(2);
if (path === undefined || atText === undefined || otherText === undefined) {
  process.stderr.write('usage: store-reads.ts DB AT OTHER\n');
  process.exit(2);
}
const at = BigInt(atText);
const other = BigInt(otherText);
const ro = openDatabase(path, { readonly: true });
const expected = createHistoryReader(ro).stateAt('connections', at).rows.length;
// cold: a fresh reader per run (no cached versions or strings; its statements are prepared
// beforehand); warm code: enough untimed runs for V8 to optimise the path
const fresh = Array.from({ length: 21 }, () => createHistoryReader(ro));
const cold = bench(() => {
  if (fresh.pop()!.stateAt('connections', at).rows.length !== expected) throw new Error('stateAt changed');
}, 6, 15);
// warm: one reader answering alternately for two instants in different batches, as a TUI
// scrubbing through time does
const warmReader = createHistoryReader(ro);
let flip = false;
const warm = bench(() => warmReader.stateAt('connections', (flip = !flip) ? at : other), 2, 15);
ro.close();
process.stdout.write(`${JSON.stringify({ expected, cold, warm })}\n`);
