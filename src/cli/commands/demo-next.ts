/** The demo's closing block: a few commands to try next on the recording, each copyable as it is. */
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import type { TimelineEvent } from '../../report/timeline/types.ts';

const NS_PER_S = 1_000_000_000n;

/** A word safe to paste into a POSIX shell: as it is when plain, else in single quotes. */
export function shellWord(text: string): string {
  if (/^[A-Za-z0-9._/:=@+,%-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** An instant to the second (rounded up, so `--at` includes a poll that started within that second). */
export function secondsText(ns: bigint): string {
  const up = ((ns + NS_PER_S - 1n) / NS_PER_S) * NS_PER_S;
  return formatTimestamp(up).replace(/\.0+Z$/, 'Z');
}

/** The "what to try next" lines for the database shown as `db`, around the worst incident when there is one. */
export function nextSteps(db: string, worst: TimelineEvent | undefined, end?: bigint): string {
  const cmd = (...args: string[]): string => `  npx flightrec --db ${shellWord(db)} ${args.map(shellWord).join(' ')}`;
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
