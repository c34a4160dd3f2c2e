/** Filter warnings on stderr, each with the filter and a caret under the part it is about. */
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { caretLines } from '../../filter/errors.ts';
import type { FilterWarning } from '../../filter/index.ts';
import type { CliIo } from '../context.ts';

/** Writes each warning of a checked filter (a name the field never holds, ...) to stderr. */
export function writeFilterWarnings(expr: string, warnings: readonly FilterWarning[], io: CliIo): void {
  for (const w of warnings) {
    const { line, caret } = caretLines(expr, w.start, w.end);
    io.stderr.write(`warning: ${sanitizeForTerminal(w.message)}\n  ${line}\n  ${caret}\n`);
  }
}
