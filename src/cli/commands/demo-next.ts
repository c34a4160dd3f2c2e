/** The demo's closing block: a few commands to try next on the recording, each copyable as it is. */
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import type { TimelineEvent } from '../../report/timeline/types.ts';
import { shellWord } from '../shell-word.ts';

const NS_PER_S = 1_000_000_000n;

export { shellWord } from '../shell-word.ts';

/** An instant to the second (rounded up, so `--at` includes a poll that started within that second). */
export function secondsText(ns: bigint): string {
  const up = ((ns + NS_PER_S - 1n) / NS_PER_S) * NS_PER_S;
  return formatTimestamp(up).replace(/\.0+Z$/, 'Z');
}

/**
 * The "what to try next" lines for the database shown as `db`, around the worst incident when
 * there is one; each starts with `launcher`, the command that runs this flightrec (src/cli/launcher.ts).
 */
export function nextSteps(launcher: string, db: string, worst: TimelineEvent | undefined, end?: bigint): string {
  const cmd = (...args: string[]): string => `  ${launcher} --db ${shellWord(db)} ${args.map(shellWord).join(' ')}`;
  const lines = ['What to try next:'];
  if (worst !== undefined) {
    lines.push(cmd('browse', '--incident'));
    lines.push(cmd('timeline', '--for', worst.entity));
    lines.push(cmd('query', 'connections', '--at', secondsText(worst.start)));
  } else {
    lines.push(cmd('browse'));
    lines.push(cmd('timeline'));
  }
  lines.push(end === undefined ? cmd('summary') : cmd('summary', '--until', secondsText(end)));
  return `${lines.join('\n')}\n`;
}
