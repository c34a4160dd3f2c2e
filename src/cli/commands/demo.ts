/**
 * `flightrec demo`: the whole product in one command. Starts the simulated cluster with the
 * `incident` scenario at accelerated time, records it with the real collector over loopback
 * HTTP into a fresh `./flightrec-demo.db`, then opens `browse` on a terminal, or prints the
 * incident timeline and the summary otherwise. Never touches `./flightrec.db`.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import { DEFAULT_START_NS } from '../../sim/time.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';

/** Runs another flightrec command line in-process (main passes itself, so nothing imports main). */
export type Dispatch = (argv: readonly string[]) => Promise<number>;

/** The demo's database, next to the working directory. */
export const DEMO_DB = 'flightrec-demo.db';
/** The scenario the demo records, and how much simulated time it records. */
export const DEMO_SCENARIO = 'incident';
const DEMO_MINUTES = 25;

interface DemoOpts {
  speed?: string;
  seed?: string;
  out?: string;
  interactive?: boolean;
}

/** Removes a database and its WAL side files. */
function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

/** Registers `demo`. */
export function registerDemo(program: Command, io: CliIo, done: (code: number) => void, dispatch: Dispatch): void {
  program
    .command('demo')
    .description(`record the simulated cluster playing the "${DEMO_SCENARIO}" scenario into ./${DEMO_DB}, then browse it`)
    .option('--speed <x>', 'simulated seconds per real second (default: as fast as possible)')
    .option('--seed <n>', 'world seed of the simulated cluster')
    .option('--out <file>', `database to record into (default ./${DEMO_DB}; recreated on every run)`)
    .option('--no-interactive', 'print the timeline and summary even on a terminal')
    .action(async (opts: DemoOpts) => {
      done(await runDemo(opts, io, dispatch));
    });
}

/** Records the demo and shows it; returns the exit code. */
export async function runDemo(opts: DemoOpts, io: CliIo, dispatch: Dispatch): Promise<number> {
  const db = resolve(io.cwd, opts.out ?? DEMO_DB);
  if (resolve(io.cwd, 'flightrec.db') === db) throw new UsageError('demo never records into ./flightrec.db; pick another --out');
  removeDatabase(db);
  io.stderr.write(`flightrec demo: recording ${DEMO_MINUTES} simulated minutes of "${DEMO_SCENARIO}" into ${db}\n`);
  const started = io.now();
  const collect = ['--db', db, 'collect', '--simulate', DEMO_SCENARIO, '--for', `${DEMO_MINUTES}m`];
  if (opts.speed !== undefined) collect.push('--speed', opts.speed);
  if (opts.seed !== undefined) collect.push('--seed', opts.seed);
  const recorded = await dispatch(collect);
  if (recorded !== EXIT.ok) {
    io.stderr.write(`flightrec demo: recording ended with exit code ${recorded}\n`);
    return recorded;
  }
  if (io.signal.aborted) return EXIT.ok;
  io.stderr.write(`flightrec demo: recorded in ${((io.now() - started) / 1000).toFixed(1)} s\n`);
  const interactive = opts.interactive !== false && io.stdout.isTTY === true && io.stdin?.isTTY === true;
  if (interactive) return dispatch(['--db', db, 'browse']);
  const end = formatTimestamp(DEFAULT_START_NS + BigInt(DEMO_MINUTES) * 60_000_000_000n);
  io.stdout.write(`Incident timeline (events of severity warn and above) recorded in ${db}\n\n`);
  const timeline = await dispatch(['--db', db, 'timeline', '--min-severity', 'warn']);
  if (timeline !== EXIT.ok) return timeline;
  io.stdout.write('\nSummary\n\n');
  const summary = await dispatch(['--db', db, 'summary', '--until', end, '--window', `${DEMO_MINUTES}m`]);
  if (summary !== EXIT.ok) return summary;
  io.stdout.write(
    `\nExplore it: npx flightrec --db ${DEMO_DB} browse | query connections --at ${end} | timeline -o html > incident.html\n`,
  );
  return EXIT.ok;
}
