// The read half of bench/store.bench.ts, run in a process of its own: the state of all
// connections as of T, cold (a fresh reader per run) and warm (one reader scrubbing between two
// instants). Readers are their own processes in flightrec (`query`, `browse`, `report`), not the
// collector that wrote the history, so this process opens the finished database and only reads.
//
// Run: node --import tsx bench/lib/store-reads.ts DB AT OTHER   (instants in ns since the epoch)
// Prints one JSON line on stdout: { expected, cold, warm }, each a WallCpuTiming (bench/lib/figures.ts).
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { timeWallAndCpu } from './figures.ts';

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
const cold = timeWallAndCpu(
  () => {
    if (fresh.pop()!.stateAt('connections', at).rows.length !== expected) throw new Error('stateAt changed');
  },
  { warmup: 6, runs: 15 },
);
// warm: one reader answering alternately for two instants in different batches, as a TUI
// scrubbing through time does
const warmReader = createHistoryReader(ro);
let flip = false;
const warm = timeWallAndCpu(
  () => {
    flip = !flip;
    return warmReader.stateAt('connections', flip ? at : other);
  },
  { warmup: 2, runs: 15 },
);
ro.close();
process.stdout.write(`${JSON.stringify({ expected, cold, warm })}\n`);
