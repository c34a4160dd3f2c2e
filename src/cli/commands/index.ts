/** Registers every command that works today; `--help` lists only these. */
import type { Command } from 'commander';
import type { CliIo } from '../context.ts';

/** Adds the commands of the landed issues to the program. */
export function registerCommands(_program: Command, _io: CliIo, _done: (code: number) => void): void {}
