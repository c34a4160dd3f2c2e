/** Registers every command that works today; `--help` lists only these. */
import type { Command } from 'commander';
import type { CliIo } from '../context.ts';
import { registerBrowse } from './browse.ts';
import { registerCollect } from './collect.ts';
import { registerDb } from './db.ts';
import { registerDemo, type Dispatch } from './demo.ts';
import { registerDiff } from './diff.ts';
import { registerExport } from './export.ts';
import { registerFilterCheck } from './filter-check.ts';
import { registerImport } from './import.ts';
import { registerQuery } from './query.ts';
import { registerSim } from './sim.ts';
import { registerSummary } from './summary.ts';
import { registerTimeline } from './timeline.ts';
import { registerTrends } from './trends.ts';

/** Adds the commands of the landed issues to the program. */
export function registerCommands(program: Command, io: CliIo, done: (code: number) => void, dispatch: Dispatch): void {
  registerCollect(program, io, done);
  registerSim(program, io, done);
  registerDemo(program, io, done, dispatch);
  registerImport(program, io, done);
  registerQuery(program, io, done);
  registerDiff(program, io, done);
  registerTrends(program, io, done);
  registerTimeline(program, io, done);
  registerSummary(program, io, done);
  registerBrowse(program, io, done);
  registerFilterCheck(program, io, done);
  registerExport(program, io, done);
  registerDb(program, io, done);
}
