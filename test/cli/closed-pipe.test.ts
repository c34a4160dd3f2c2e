/**
 * A reader that goes away (`flightrec collect --help | head -1`, `query ... | head -1`): the real
 * `flightrec` process ends quietly, exit 0, without an EPIPE stack trace, whatever the command;
 * a long-running one stops cleanly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordScenario, tempDir } from '../fixtures/timeline/run-cli.ts';
import { startFlightrec } from '../helpers/flightrec-process.ts';
import { isClosedPipe, signalPolicy } from '../../src/cli/main.ts';

const tmp = tempDir();
const db = tmp.path('history.db');
beforeAll(async () => {
  await recordScenario(db, 'quiet', '2m');
}, 60_000);
afterAll(() => tmp.remove());

/** Runs flightrec with its stdout (or stderr) closed by the reader after `keep` bytes (0: before anything arrives). */
async function withReaderGone(
  argv: readonly string[],
  stream: 'stdout' | 'stderr',
  keep = 0,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; err: string }> {
  const p = startFlightrec(argv);
  const s = p.child[stream]!;
  if (keep === 0) s.destroy();
  else {
    let got = 0;
    s.on('data', (b: Buffer) => {
      got += b.length;
      if (got >= keep) s.destroy();
    });
  }
  const exit = await p.exit;
  return { ...exit, err: stream === 'stderr' ? '' : p.err() };
}

describe('a reader that goes away', () => {
  it('ends --help quietly (several writes), exit 0', async () => {
    for (const argv of [['collect', '--help'], ['--help']]) {
      expect(await withReaderGone(argv, 'stdout'), argv.join(' ')).toEqual({ code: 0, signal: null, err: '' });
    }
  }, 60_000);

  it('ends a query quietly after its first lines, exit 0', async () => {
    const argv = ['--db', db, '-o', 'ndjson', 'query', 'connections', '--since', '2026-01-01T00:00:00Z'];
    expect(await withReaderGone(argv, 'stdout', 200)).toEqual({ code: 0, signal: null, err: '' });
  }, 60_000);

  it('stops a long-running command cleanly when its log reader goes away', async () => {
    const r = await withReaderGone(['sim', '--port', '0'], 'stderr');
    expect(r).toMatchObject({ code: 0, signal: null });
  }, 60_000);
});

describe('the process policy', () => {
  it('takes a second signal within a second for the first (forwarded by npm), a later one as exit at once', () => {
    let t = 0;
    const calls: string[] = [];
    const on = signalPolicy(
      () => calls.push('abort'),
      () => calls.push('exit'),
      () => t,
    );
    on();
    t = 5;
    on();
    t = 999;
    on();
    expect(calls).toEqual(['abort']);
    t = 1000;
    on();
    expect(calls).toEqual(['abort', 'exit']);
  });

  it('knows the errors of a closed pipe', () => {
    expect(isClosedPipe(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe(true);
    expect(isClosedPipe(Object.assign(new Error('no space'), { code: 'ENOSPC' }))).toBe(false);
    expect(isClosedPipe(undefined)).toBe(false);
  });
});
