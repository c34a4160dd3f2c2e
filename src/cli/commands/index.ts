/**
 * Registers every command that works today; `--help` lists only these. A command's module (and
 * what it imports: the store, the simulator, React) is loaded only when that command runs, so
 * `flightrec query` never pays for the TUI and `--version` pays for nothing.
 */
import type { Command } from 'commander';
import type { CliIo } from '../context.ts';
import type { Dispatch } from './demo.ts';

/** What registers one command on the program. */
type Register = (program: Command, io: CliIo, done: (code: number) => void, dispatch: Dispatch) => void;

/** Each top-level command and the loader of the module that registers it, in --help order. */
const COMMANDS: Record<string, () => Promise<Register>> = {
  collect: async () => (await import('./collect.ts')).registerCollect,
  check: async () => (await import('./check.ts')).registerCheck,
  sim: async () => (await import('./sim.ts')).registerSim,
  demo: async () => (await import('./demo.ts')).registerDemo,
  import: async () => (await import('./import.ts')).registerImport,
  query: async () => (await import('./query.ts')).registerQuery,
  diff: async () => (await import('./diff.ts')).registerDiff,
  trends: async () => (await import('./trends.ts')).registerTrends,
  timeline: async () => (await import('./timeline.ts')).registerTimeline,
  summary: async () => (await import('./summary.ts')).registerSummary,
  fleet: async () => (await import('./fleet.ts')).registerFleet,
  browse: async () => (await import('./browse.ts')).registerBrowse,
  filter: async () => (await import('./filter-check.ts')).registerFilterCheck,
  export: async () => (await import('./export.ts')).registerExport,
  db: async () => (await import('./db.ts')).registerDb,
};

/** Global options that take a value, so the command word can be found after them. */
const GLOBAL_WITH_VALUE = new Set(['--db', '--config', '--cluster', '-o', '--output']);

/** The command word of an argument list (the first argument that is not a global option), if any. */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (GLOBAL_WITH_VALUE.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return arg;
  }
  return undefined;
}

/** Adds the command named in `argv` (or, for help and unknown words, every command) to the program. */
export async function registerCommands(
  program: Command,
  io: CliIo,
  done: (code: number) => void,
  dispatch: Dispatch,
  argv: readonly string[] = [],
): Promise<void> {
  const word = commandWord(argv);
  // info is registered by main itself; --version needs no command at all
  const noCommandNeeded =
    word === 'info' || (word === undefined && (argv.includes('-V') || argv.includes('--version')));
  const wanted = noCommandNeeded
    ? []
    : word !== undefined && Object.hasOwn(COMMANDS, word)
      ? [word]
      : Object.keys(COMMANDS);
  const registers = await Promise.all(wanted.map((name) => COMMANDS[name]!()));
  for (const register of registers) register(program, io, done, dispatch);
  if (argv.includes('--help') || argv.includes('-h') || word === 'help') await addScenarioHelp(program);
}

/** Commands whose `--help` lists the built-in scenarios. */
const SCENARIO_COMMANDS = ['sim', 'collect'];

/** One line per built-in scenario: its name and the first sentence of its description. */
export function scenarioLines(texts: Readonly<Record<string, string>>): string[] {
  const names = Object.keys(texts);
  const width = Math.max(...names.map((n) => n.length));
  return names.map((name) => {
    const description = /^description: (.*)$/m.exec(texts[name] ?? '')?.[1] ?? '';
    const sentence = /^.*?\.(?=\s|$)/.exec(description)?.[0] ?? description;
    return `  ${name.padEnd(width)}  ${sentence}`;
  });
}

/** Adds the list of built-in scenarios to the help of `sim` and `collect` (loaded only for --help). */
async function addScenarioHelp(program: Command): Promise<void> {
  const commands = program.commands.filter((c) => SCENARIO_COMMANDS.includes(c.name()));
  if (commands.length === 0) return;
  const { BUILTIN_SCENARIO_TEXT } = await import('../../sim/scenarios/index.ts');
  const text = `\nBuilt-in scenarios (--${'scenario'} NAME for sim, --simulate NAME for collect; or a YAML file, docs/scenarios.md):\n${scenarioLines(BUILTIN_SCENARIO_TEXT).join('\n')}\n`;
  for (const c of commands) c.addHelpText('after', text);
}
