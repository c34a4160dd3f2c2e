/** Registers every command that works today; `--help` lists only these. */
import type { Command } from 'commander';
import type { CliIo } from '../context.ts';
import { registerFilterCheck } from './filter-check.ts';
import { registerSim } from './sim.ts';

/** Adds the commands of the landed issues to the program. */
export function registerCommands(program: Command, io: CliIo, done: (code: number) => void): void {
  registerSim(program, io, done);
  registerFilterCheck(program, io, done);
}
