/**
 * The README's examples on the database they name: its reproduction step records into a file of
 * its own (`incident.db`, never the demo's `flightrec-demo.db`), and each example command then
 * answers something from it: exit 0, rows on stdout, no "unobserved" warning.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { tempDir } from '../fixtures/timeline/run-cli.ts';

const README = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
const tmp = tempDir();
afterAll(() => tmp.remove());

/** The words of a shell command line (plain words and single-quoted ones; a `> file` redirect dropped). */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2]!);
  const redirect = out.indexOf('>');
  return redirect < 0 ? out : out.slice(0, redirect);
}

/** The `npx flightrec ...` lines of the README's sh blocks that name `db`. */
function examples(db: string): string[][] {
  const lines: string[][] = [];
  for (const block of README.matchAll(/```sh\n([^]*?)```/g)) {
    for (const line of block[1]!.split('\n')) {
      const w = words(line.replace(/\s+#.*$/, ''));
      if (w[0] === 'npx' && w[1] === 'flightrec' && w[2] === '--db' && w[3] === db) lines.push(w.slice(2));
    }
  }
  return lines;
}

describe("the README's examples", () => {
  it('record into incident.db, then answer from it', async () => {
    const all = examples('incident.db');
    const [record, ...asks] = all;
    expect(record).toEqual(['--db', 'incident.db', 'collect', '--simulate', 'incident', '--for', '25m']);
    expect(asks.length).toBeGreaterThanOrEqual(5);
    // no example names the demo's recording, whose times are those of the day npm start ran
    expect(examples('flightrec-demo.db').filter((w) => w.some((x) => /^2026-01-01T/.test(x)))).toEqual([]);
    const recorded = memoryIo({ cwd: tmp.dir });
    expect(await main(record!, recorded), recorded.err()).toBe(0);
    for (const argv of asks) {
      const io = memoryIo({ cwd: tmp.dir, now: () => Date.parse('2026-01-01T00:30:00Z') });
      // diff exits 1 when it found differences (docs/cli.md)
      const ok = argv.includes('diff') ? [0, 1] : [0];
      expect(ok, `${argv.join(' ')}: ${io.err()}`).toContain(await main(argv, io));
      expect(io.err(), argv.join(' ')).not.toMatch(/unobserved|\b0 rows|nothing/);
      expect(io.out().trim().split('\n').length, argv.join(' ')).toBeGreaterThan(2);
    }
  }, 120_000);
});
