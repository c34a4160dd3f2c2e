/**
 * `browse --config FILE`: the file's thresholds decide the timeline's events and the browser's
 * lag marks, the help says which are in force, and a bad section is refused before the terminal
 * is taken.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.ts';
import { registerBrowse } from '../../src/cli/commands/browse.ts';
import type { CliIo } from '../../src/cli/context.ts';
import { toCliError } from '../../src/cli/error-codes.ts';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../../src/report/timeline/thresholds.ts';
import { timelineInWorker } from '../../src/tui/data/timeline-thread.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { demoDatabase } from './helpers/demo-db.ts';
import { KEY, openBrowser, tick, type Browser } from './helpers/render.ts';

/** Thresholds that find no authentication failures and mark lags above 10 records. */
const STRICT: Thresholds = {
  ...DEFAULT_THRESHOLDS,
  connections: { ...DEFAULT_THRESHOLDS.connections, authFailureMin: 100_000 },
  shadow: { ...DEFAULT_THRESHOLDS.shadow, lagRecords: 10n },
};

async function run(args: string[], io: CliIo): Promise<number> {
  let code = 0;
  const program = await buildProgram(io, (c) => {
    code = c;
  });
  if (!program.commands.some((c) => c.name() === 'browse')) registerBrowse(program, io, (c) => (code = c));
  try {
    await program.parseAsync(args, { from: 'user' });
    return code;
  } catch (err) {
    const failure = toCliError(err);
    io.stderr.write(`flightrec: ${failure.message}\n`);
    return failure.exitCode;
  }
}

describe('browse --config', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flightrec-browse-config-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a bad thresholds: section, naming the key, before it takes the terminal', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'thresholds:\n  shadow:\n    lagRecords: -5\n');
    const io = Object.assign(memoryIo({ isTTY: true }), { stdin: { isTTY: true } as unknown as NodeJS.ReadStream });
    expect(await run(['browse', '--config', file, '--db', join(dir, 'none.db')], io)).toBe(2);
    expect(io.err()).toMatch(/thresholds\.shadow\.lagRecords: must be a whole number of records/);
    expect(io.out()).not.toContain('\u001b[?1049h');
    const missing = Object.assign(memoryIo({ isTTY: true }), {
      stdin: { isTTY: true } as unknown as NodeJS.ReadStream,
    });
    expect(await run(['browse', '--config', join(dir, 'absent.yaml')], missing)).toBe(2);
    expect(missing.err()).toMatch(/cannot read the config file/);
  });

  it('computes the timeline in its worker with the thresholds in force', async () => {
    const db = await demoDatabase();
    const task = timelineInWorker(db, undefined, undefined, STRICT);
    const kinds = new Set((await task.result).events.map((e) => e.kind));
    expect(kinds.has('connections.auth-failures')).toBe(false);
    expect(kinds.has('connections.broker-empty')).toBe(true);
  }, 60_000);

  describe('in the browser', () => {
    let b: Browser;
    beforeAll(async () => {
      b = await openBrowser(await demoDatabase(), {
        columns: 120,
        rows: 40,
        thresholds: { values: STRICT, from: 'strict.yaml' },
      });
      for (let i = 0; i < 100 && !b.source.timelineReady(); i++) await tick(50);
    }, 120_000);
    afterAll(() => b?.close());

    it('finds the events of its thresholds', () => {
      const kinds = new Set(b.source.timeline().map((e) => e.kind));
      expect(kinds.has('connections.auth-failures')).toBe(false);
    });

    it('marks lags above its shadow.lagRecords', async () => {
      const f = await b.press(':', 'shadow-links', KEY.enter, KEY.enter, 'j', KEY.enter);
      expect(f).toContain('topic payments');
      // partitions 13 and more records behind are over 10: marked, not ✓
      expect(f).toMatch(/^ ▲ +\d+ +\d+ +\d+ +(1[1-9]|[2-9]\d|\d{3,}) /m);
      await b.press(KEY.esc, KEY.esc, KEY.esc);
    });

    it('lists the thresholds in force in the help, those of the file marked', async () => {
      const f = await b.press('?');
      expect(f).toMatch(/Thresholds\s[^]*from strict\.yaml: 2 changed \(\*\),/);
      expect(f).toContain('*shadow.lagRecords 10');
      expect(f).toContain('iceberg.commitLag 1.0M');
      expect(f).toContain('*connections.authFailureMin 100000');
      await b.press('?');
    });
  });
});
