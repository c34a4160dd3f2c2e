/** How a report command writes: the output format asked for (checked against the command's own) and colour. */
import type { CliIo } from '../context.ts';
import { UsageError } from '../errors.ts';

/** How a report command writes: the format asked for (or `table`), colour, terminal width. */
export interface OutputChoice<F extends string> {
  readonly format: F;
  readonly color: boolean;
  readonly width: number | undefined;
}

/** Picks the output format among `allowed` (default `table`) and whether colour is allowed. */
export function chooseOutput<F extends string>(
  g: { output?: string; color?: boolean },
  io: CliIo,
  allowed: readonly F[],
): OutputChoice<F> {
  const format = allowed.find((f) => f === (g.output ?? 'table'));
  if (format === undefined) {
    throw new UsageError(`invalid --output ${JSON.stringify(g.output)}: expected one of ${allowed.join(', ')}`);
  }
  const env = io.env;
  const color =
    io.stdout.isTTY === true &&
    g.color !== false &&
    (env.NO_COLOR === undefined || env.NO_COLOR === '') &&
    env.FORCE_COLOR !== '0' &&
    env.TERM !== 'dumb';
  const width =
    io.stdout.isTTY === true && io.stdout.columns !== undefined && io.stdout.columns > 0
      ? io.stdout.columns
      : undefined;
  return { format, color, width };
}
