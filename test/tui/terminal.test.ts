/** The terminal is restored however the browser ends: quit, Ctrl-C, a signal, a crash. */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runBrowse } from '../../src/tui/index.ts';
import { ESC, TerminalGuard } from '../../src/tui/terminal.ts';
import { demoDatabase } from './helpers/demo-db.ts';
// not helpers/render.ts: it imports ink, and this file must leave ink's first import to runBrowse
import { tick } from './helpers/tick.ts';

class FakeOut extends EventEmitter {
  readonly isTTY = true;
  columns = 100;
  rows = 30;
  text = '';
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

class FakeIn extends EventEmitter {
  readonly isTTY = true;
  raw: boolean[] = [];
  #data: string | null = null;
  type(s: string): void {
    this.#data = s;
    this.emit('readable');
  }
  read(): string | null {
    const d = this.#data;
    this.#data = null;
    return d;
  }
  setEncoding(): void {}
  setRawMode(on: boolean): void {
    this.raw.push(on);
  }
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

async function browse(
  keys: (input: FakeIn, abort: AbortController, out: FakeOut) => Promise<void>,
): Promise<{ out: FakeOut; input: FakeIn }> {
  const db = await demoDatabase();
  const out = new FakeOut();
  const input = new FakeIn();
  const abort = new AbortController();
  const done = runBrowse({
    database: db,
    displayPath: 'demo.db',
    stdin: input as unknown as NodeJS.ReadStream,
    stdout: out as unknown as NodeJS.WriteStream,
    stderr: out as unknown as NodeJS.WriteStream,
    noColor: true,
    now: () => 1_767_226_800_000,
    signal: abort.signal,
  });
  await tick(300);
  await keys(input, abort, out);
  await done;
  return { out, input };
}

describe('terminal restore', () => {
  it('draws live frames on a terminal even when CI is set (ink would hold them back until exit)', async () => {
    const saved = process.env['CI'];
    process.env['CI'] = 'true';
    let liveBeforeQuit = false;
    try {
      await browse(async (i, _abort, o) => {
        const deadline = Date.now() + 30_000;
        while (!o.text.includes('Latest events') && Date.now() < deadline) await tick(50);
        liveBeforeQuit = o.text.includes('Latest events');
        i.type('q');
      });
      expect(process.env['CI']).toBe('true');
    } finally {
      if (saved === undefined) delete process.env['CI'];
      else process.env['CI'] = saved;
    }
    expect(liveBeforeQuit).toBe(true);
  }, 120_000);

  it('enters the alternate screen and leaves it when the user quits with q', async () => {
    const { out, input } = await browse(async (i, _abort, o) => {
      // the timeline is computed by the worker thread a little after the first frame
      const deadline = Date.now() + 30_000;
      while (!/● 00:16:00 /.test(o.text) && Date.now() < deadline) await tick(100);
      i.type('q');
    });
    // at 80 columns the severity is the glyph's alone, and the kind keeps its distinguishing end
    expect(out.text).toMatch(/● 00:16:00 +(info +)?\S*member-version/);
    expect(out.text.startsWith(ESC.enter)).toBe(true);
    expect(out.text).toContain('ListKafkaConnections');
    expect(out.text.endsWith(ESC.leave)).toBe(true);
    expect(input.raw.at(-1)).toBe(false);
  }, 120_000);

  it('quits on Ctrl-C and on SIGINT/SIGTERM (the abort signal)', async () => {
    const a = await browse(async (i) => i.type('\u0003'));
    expect(a.out.text.endsWith(ESC.leave)).toBe(true);
    const b = await browse(async (_i, abort) => abort.abort());
    expect(b.out.text.endsWith(ESC.leave)).toBe(true);
  }, 120_000);

  it('restores once, also when the process exits after a crash', () => {
    const out = new FakeOut();
    const input = new FakeIn();
    const before = process.listeners('exit');
    const guard = new TerminalGuard({ stdout: out, stdin: input });
    expect(out.text).toBe(ESC.enter);
    const onExit = process.listeners('exit').find((l) => !before.includes(l));
    expect(onExit).toBeDefined();
    onExit?.(1); // what the process does when it dies of an uncaught error
    expect(out.text).toBe(ESC.enter + ESC.leave);
    guard.restore();
    expect(out.text).toBe(ESC.enter + ESC.leave);
    expect(input.raw).toEqual([false]);
    expect(process.listeners('exit')).not.toContain(onExit);
  });
});
