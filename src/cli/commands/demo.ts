/**
 * `flightrec demo`: the whole product in one command. Starts the simulated cluster with the
 * `incident` scenario at accelerated time, so that the recording ends close to now, records it
 * with the real collector over loopback HTTP into `./flightrec-demo.db` (replacing only an
 * earlier demo recording), showing one progress line; then opens `browse` at the worst incident
 * on a terminal, or prints the incident timeline otherwise, and closes with what to try next.
 */
import { relative, resolve, isAbsolute } from 'node:path';
import type { Command } from 'commander';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import { renderTimelineText } from '../../report/render/timeline-text.ts';
import { buildTimeline, type Timeline } from '../../report/timeline/timeline.ts';
import { worstIncident } from '../../report/timeline/worst-incident.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { checkDemoTarget, createDemoDatabase } from './demo-file.ts';
import { DEMO_DB, DEMO_SCENARIO } from './demo-constants.ts';
import { nextSteps } from './demo-next.ts';
import { launcherFor } from '../launcher.ts';
import { globalOptionsHelp } from './help.ts';
import { createDemoProgress, clockText, type ProgressPlan } from './demo-progress.ts';
import { withHistory } from './history.ts';
import { chooseOutput } from './output-choice.ts';

/** Runs another flightrec command line in-process, optionally with some of its I/O replaced (main passes itself). */
export type Dispatch = (argv: readonly string[], io?: Partial<CliIo>) => Promise<number>;

export { DEMO_DB, DEMO_SCENARIO } from './demo-constants.ts';
/** How much simulated time the demo records. */
const DEMO_MINUTES = 25;
const MINUTE_NS = 60_000_000_000n;
const LENGTH_NS = BigInt(DEMO_MINUTES) * MINUTE_NS;

interface DemoOpts {
  speed?: string;
  seed?: string;
  out?: string;
  force?: boolean;
  interactive?: boolean;
}

/** Registers `demo`. */
export function registerDemo(program: Command, io: CliIo, done: (code: number) => void, dispatch: Dispatch): void {
  program
    .command('demo')
    .description(
      `record the simulated cluster playing the "${DEMO_SCENARIO}" scenario into ./${DEMO_DB}, then browse it`,
    )
    .option('--speed <x>', 'simulated seconds per real second (default: as fast as possible)')
    .option('--seed <n>', 'world seed of the simulated cluster')
    .option('--out <file>', `database to record into (default ./${DEMO_DB}); replaces only an earlier demo recording`)
    .option('--force', 'with --out: replace the file even when it is not a demo recording')
    .option('--no-interactive', 'print the timeline even on a terminal')
    .addHelpText(
      'after',
      `\nThe recording ends close to now (the simulated world starts ${DEMO_MINUTES} minutes before the end).\n` +
        'On a terminal the browser opens at the worst incident; otherwise the timeline is printed.\n' +
        globalOptionsHelp({}),
    )
    .action(async (opts: DemoOpts) => {
      done(await runDemo(opts, io, dispatch));
    });
}

/** When the simulated world starts: so that the recording ends on the current minute (at speed X, when it finishes). */
export function demoStartNs(nowMs: number, speed: number | undefined): bigint {
  const realMs = speed === undefined || !Number.isFinite(speed) || speed <= 0 ? 0 : (DEMO_MINUTES * 60_000) / speed;
  const endNs = BigInt(Math.floor(nowMs + realMs)) * 1_000_000n;
  return (endNs / MINUTE_NS) * MINUTE_NS - LENGTH_NS;
}

/**
 * The `collect --simulate` arguments that choose the world's start. The flag is `--start TIME`
 * (RFC 3339), the start-time option of `collect --simulate`.
 */
export function simStartArgs(startNs: bigint): string[] {
  return ['--start', formatTimestamp(startNs)];
}

/** The path as the user should type it: relative to the working directory when inside it. */
function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  return !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/** A captured stream (the collector's own lines, shown only when the recording fails). */
function capture(): { sink: { write(s: string): boolean }; text(): string } {
  let text = '';
  return { sink: { write: (s: string) => ((text += s), true) }, text: () => text };
}

/** The scripted incidents of the demo's scenario, as offsets from its start (for the progress line). */
async function incidentOffsets(): Promise<bigint[]> {
  const { loadScenario } = await import('../../sim/scenario/load.ts');
  return loadScenario(DEMO_SCENARIO).events.map((e) => e.at);
}

/** Records the demo and shows it; returns the exit code. */
export async function runDemo(opts: DemoOpts, io: CliIo, dispatch: Dispatch): Promise<number> {
  const db = resolve(io.cwd, opts.out ?? DEMO_DB);
  const shown = displayPath(db, io.cwd);
  if (resolve(io.cwd, 'flightrec.db') === db)
    throw new UsageError('demo never records into ./flightrec.db; pick another --out');
  checkDemoTarget(db, shown, opts.force === true);
  const speed = opts.speed === undefined ? undefined : Number(opts.speed);
  const startNs = demoStartNs(io.now(), speed);
  createDemoDatabase(db);
  io.stderr.write(`flightrec demo: ${DEMO_MINUTES} simulated minutes of "${DEMO_SCENARIO}" into ${shown}\n`);
  const plan: ProgressPlan = { startNs, lengthNs: LENGTH_NS, incidentOffsets: await incidentOffsets() };
  const progress = createDemoProgress(io.stderr, plan);
  const own = capture();
  const started = io.now();
  const collect = [
    '--db',
    db,
    'collect',
    '--simulate',
    DEMO_SCENARIO,
    '--for',
    `${DEMO_MINUTES}m`,
    ...simStartArgs(startNs),
  ];
  if (opts.speed !== undefined) collect.push('--speed', opts.speed);
  if (opts.seed !== undefined) collect.push('--seed', opts.seed);
  const recorded = await dispatch(collect, { stderr: own.sink, collectorReporter: progress });
  progress.done();
  if (recorded !== EXIT.ok) {
    io.stderr.write(own.text());
    for (const note of progress.notes) io.stderr.write(`${note}\n`);
    io.stderr.write(`flightrec: demo: recording ended with exit code ${recorded}\n`);
    return recorded;
  }
  if (io.signal.aborted) return EXIT.ok;
  const c = progress.counts;
  io.stderr.write(
    `flightrec demo: recorded ${clockText(c.elapsedNs)} simulated (${c.polls} polls, ${c.failed} failed) in ${((io.now() - started) / 1000).toFixed(1)} s\n`,
  );
  const interactive = opts.interactive !== false && io.stdout.isTTY === true && io.stdin?.isTTY === true;
  if (interactive) {
    const code = await dispatch(['--db', shown, 'browse', '--incident']);
    if (code === EXIT.ok)
      io.stdout.write(`\n${nextSteps(launcherFor(io), shown, worstOf(db, io), startNs + LENGTH_NS)}`);
    return code;
  }
  const timeline = withHistory({ db }, io, (reader, cluster) =>
    buildTimeline(reader, { cluster, minSeverity: 'warn' }),
  );
  const out = chooseOutput<'table'>({}, io, ['table']);
  io.stdout.write(`Incident timeline (severity warn and above) recorded in ${shown}\n\n`);
  io.stdout.write(renderTimelineText(timeline, { color: out.color, width: out.width, wide: false }));
  io.stdout.write(`\n${nextSteps(launcherFor(io), shown, worstIncident(timeline.events)?.event, timeline.until)}`);
  return EXIT.ok;
}

/** The worst incident of the recording at `db` (after the browser closed). */
function worstOf(db: string, io: CliIo): Timeline['events'][number] | undefined {
  const timeline = withHistory({ db }, io, (reader, cluster) =>
    buildTimeline(reader, { cluster, minSeverity: 'warn' }),
  );
  return worstIncident(timeline.events)?.event;
}
