import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDemoTarget, createDemoDatabase, demoTarget } from '../../src/cli/commands/demo-file.ts';
import { demoStartNs, simStartArgs } from '../../src/cli/commands/demo.ts';
import { nextSteps, secondsText, shellWord } from '../../src/cli/commands/demo-next.ts';
import { progressText } from '../../src/cli/commands/demo-progress.ts';
import { main } from '../../src/cli/main.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { recordScenario } from '../tui/helpers/demo-db.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-demo-'));
const BIN = fileURLToPath(new URL('../../bin/flightrec.js', import.meta.url));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const MINUTE_NS = 60_000_000_000n;

/** The "what to try next" block at the end of the output. */
function nextBlock(out: string): string[] {
  const at = out.lastIndexOf('What to try next:');
  expect(at).toBeGreaterThan(0);
  return out.slice(at).trimEnd().split('\n').slice(1);
}

describe('flightrec demo (what npm start runs), without a terminal', () => {
  it('prints a few lines, then the timeline ending close to now, then what to try next', async () => {
    writeFileSync(join(dir, 'flightrec.db'), 'not touched by the demo');
    const io = memoryIo({ cwd: dir });
    const now = Date.now();
    expect(await main(['demo'], io)).toBe(0);
    const out = io.out();
    const before = out.slice(0, out.indexOf('Timeline of cluster'));
    // everything printed before the timeline, on both streams: one line per poll round no more
    const lines = [...io.err().split('\n'), ...before.split('\n')].filter((l) => l.trim() !== '');
    expect(lines.length).toBeLessThanOrEqual(15);
    expect(io.err()).not.toMatch(/GetShadowTopic ok/);
    for (const expected of [
      'connections.broker-empty',
      'broker/2',
      'connections.storm',
      'shadow.task-state',
      'iceberg.catalog-unreachable',
    ]) {
      expect(out, expected).toContain(expected);
    }
    // the recording ends on the current minute, not in 2026-01-01
    const end = /→ (\S+Z) \(25m00s\)/.exec(out)?.[1];
    expect(end).toBeDefined();
    expect(Math.abs(Date.parse(end!) - now)).toBeLessThan(2 * 60_000);
    // three or four commands, each copyable as it is: no pipes, times to the second; outside the
    // checkout npx would fetch another package: the checkout's own bin, by its path
    const block = nextBlock(out);
    expect(block.length).toBeGreaterThanOrEqual(3);
    expect(block.length).toBeLessThanOrEqual(4);
    for (const line of block) {
      expect(line).toMatch(new RegExp(`^ {2}node ${BIN.replace(/[.]/g, '\\.')} --db flightrec-demo\\.db [a-z]`));
      expect(line).not.toContain(' | ');
      expect(line).not.toMatch(/\.\d+Z|\d{10,}/);
    }
    expect(block.join('\n')).toContain('timeline --for broker/2');
    expect(demoTarget(join(dir, 'flightrec-demo.db'))).toBe('demo');
    expect(statSync(join(dir, 'flightrec.db')).size).toBe('not touched by the demo'.length);
  }, 120_000);

  it('records into --out, names that file in its closing hint, and replaces an earlier demo recording', async () => {
    mkdirSync(join(dir, 'nested'), { recursive: true });
    createDemoDatabase(join(dir, 'nested', 'again.db'));
    const io = memoryIo({ cwd: dir });
    expect(await main(['demo', '--out', 'nested/again.db', '--no-interactive'], io)).toBe(0);
    for (const line of nextBlock(io.out())) expect(line).toContain('--db nested/again.db ');
    const stats = memoryIo({ cwd: dir });
    expect(await main(['--db', 'nested/again.db', 'db', 'stats'], stats)).toBe(0);
    expect(stats.out()).toMatch(/polls\s+\d+ \(0 failed\)/);
  }, 120_000);

  it('refuses to overwrite a file that is not a demo recording (exit 2, file unchanged) unless --force', async () => {
    const garbage = join(dir, 'notes.db');
    writeFileSync(garbage, 'garbage that is not a database');
    const real = join(dir, 'lab.db');
    await recordScenario(real, 'quiet', '1m');
    for (const path of [garbage, real]) {
      const hash = sha(path);
      const io = memoryIo({ cwd: dir });
      expect(await main(['demo', '--out', path], io)).toBe(2);
      expect(io.err()).toMatch(/^flightrec: \S+ exists and is not a demo recording/);
      expect(io.err()).toContain('--force');
      expect(io.err()).not.toMatch(/\n\s+at /);
      expect(sha(path)).toBe(hash);
    }
    expect(demoTarget(real)).toBe('other');
    // --force lets it through
    expect(checkDemoTarget(garbage, 'notes.db', true)).toBe('other');
  }, 60_000);

  it('says that --out is a directory instead of failing with EISDIR', async () => {
    const io = memoryIo({ cwd: dir });
    expect(await main(['demo', '--out', 'nested'], io)).toBe(2);
    expect(io.err()).toMatch(/^flightrec: --out nested is a directory/);
    expect(io.err()).not.toMatch(/EISDIR|\n\s+at /);
  });

  it('refuses to record into ./flightrec.db', async () => {
    const io = memoryIo({ cwd: dir });
    expect(await main(['demo', '--out', 'flightrec.db'], io)).toBe(2);
    expect(io.err()).toContain('never records into ./flightrec.db');
  });
});

describe('demo parts', () => {
  it('starts the world 25 minutes before the current minute (later at a finite speed)', () => {
    const now = Date.parse('2026-03-04T10:17:42.5Z');
    const start = demoStartNs(now, undefined);
    expect(start).toBe(BigInt(Date.parse('2026-03-04T09:52:00Z')) * 1_000_000n);
    expect(demoStartNs(now, 1) - start).toBe(25n * MINUTE_NS);
    expect(simStartArgs(start)).toEqual(['--start', '2026-03-04T09:52:00.000000000Z']);
  });

  it('writes commands a shell takes as they are', () => {
    expect(shellWord('broker/2')).toBe('broker/2');
    expect(shellWord('principal/User:svc')).toBe('principal/User:svc');
    expect(shellWord("client/it's mine")).toBe(`'client/it'\\''s mine'`);
    expect(secondsText(1_767_225_600_056_000_000n)).toBe('2026-01-01T00:00:01Z');
    expect(secondsText(1_767_225_600_000_000_000n)).toBe('2026-01-01T00:00:00Z');
    const block = nextSteps('flightrec', 'my demo.db', undefined);
    expect(block).toContain("  flightrec --db 'my demo.db' browse");
  });

  it('draws one short progress line', () => {
    const text = progressText(
      { startNs: 0n, lengthNs: 25n * MINUTE_NS, incidentOffsets: [MINUTE_NS, 2n * MINUTE_NS] },
      { polls: 412, failed: 0, elapsedNs: 12n * MINUTE_NS + 30_000_000_000n, incidents: 2 },
    );
    expect(text).toBe('simulated 12m30s/25m00s · 412 polls · 0 failed · incidents 2/2');
    expect(text.length).toBeLessThan(80);
  });

  it('knows an old unmarked demo recording and a fresh marked one', () => {
    const marked = join(dir, 'marked.db');
    createDemoDatabase(marked);
    expect(demoTarget(marked)).toBe('demo');
    expect(demoTarget(join(dir, 'absent.db'))).toBe('absent');
    expect(existsSync(join(dir, 'absent.db'))).toBe(false);
    expect(demoTarget(dir)).toBe('directory');
  });
});
