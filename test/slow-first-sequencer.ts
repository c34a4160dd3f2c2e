/**
 * The order in which vitest hands the files to its workers: the slowest first, so that the run
 * does not end with one long file on one core while the others idle. vitest's own order
 * (BaseSequencer) puts the longest first only when its cache of durations from an earlier run
 * is there, which a fresh checkout (CI) does not have; then it goes by file size. The files of
 * SLOW_FILES, the slowest of a full run, go first in that order; the others follow in vitest's.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SLOW_FILES } from './slow-files.ts';

/** Slowest-first order: SLOW_FILES in their order, then the rest as vitest orders them. */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = (f: TestSpecification): number => {
      const i = SLOW_FILES.indexOf(relative(root, f.moduleId));
      return i < 0 ? SLOW_FILES.length : i;
    };
    // a stable sort: the files not listed keep vitest's order
    return base.sort((a, b) => rank(a) - rank(b));
  }
}
