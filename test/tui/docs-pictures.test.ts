/**
 * The browser pictures of the docs are what the browser draws: README.md's 80×24 picture of
 * `browse --incident` and docs/cli.md's `browse --view upgrade` are rendered here, in-process, on
 * the demo recording (`collect --simulate incident --for 25m`, the default start) and compared
 * with the blocks in the files. `FLIGHTREC_UPDATE_DOCS=1 npx vitest run test/tui/docs-pictures.test.ts`
 * writes the blocks anew after a deliberate change of the browser.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentStart } from '../../src/tui/data/incident-start.ts';
import { demoDatabase } from './helpers/demo-db.ts';
import { openBrowser, tick, type Browser } from './helpers/render.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const UPDATE = process.env['FLIGHTREC_UPDATE_DOCS'] === '1';
/** 2026-01-01T00:30:00Z: five minutes after the recording ends */
const NOW_MS = Date.UTC(2026, 0, 1, 0, 30, 0);

/** A frame as the docs print it: lines without trailing blanks, runs of empty lines as one `[...]`. */
function docFrame(frame: string): string[] {
  const out: string[] = [];
  const lines = frame.split('\n').map((l) => l.trimEnd());
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === '' && lines[i + 1] === '') {
      while (lines[i + 1] === '') i++;
      out.push('[...]');
    } else out.push(lines[i]!);
  }
  while (out.at(-1) === '') out.pop();
  return out;
}

/** The lines between the line containing `after` and the next line equal to `end` (or the fence closing it). */
function block(text: string, after: string, end: (line: string) => boolean): { start: number; stop: number } {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.includes(after));
  if (at < 0) throw new Error(`no line with ${after}`);
  let start = at + 1;
  while (lines[start] === '') start++;
  if (lines[start]?.startsWith('```')) start++;
  let stop = start;
  while (stop < lines.length && !end(lines[stop]!)) stop++;
  return { start, stop };
}

/** Compares the block of `file` with `expected` lines, or writes them when updating. */
function checkBlock(file: string, after: string, end: (line: string) => boolean, expected: readonly string[]): void {
  const path = join(ROOT, file);
  const text = readFileSync(path, 'utf8');
  const { start, stop } = block(text, after, end);
  const lines = text.split('\n');
  if (UPDATE) {
    writeFileSync(path, [...lines.slice(0, start), ...expected, ...lines.slice(stop)].join('\n'));
    return;
  }
  expect(lines.slice(start, stop), `${file} (FLIGHTREC_UPDATE_DOCS=1 rewrites it)`).toEqual(expected);
}

describe('the browser pictures in the docs', () => {
  let db: string;
  const open: Browser[] = [];
  beforeAll(async () => {
    db = await demoDatabase('25m');
  }, 120_000);
  afterAll(() => {
    for (const b of open) b.close();
  });

  it("README.md's 80×24 picture is what browse --incident draws", async () => {
    const b = await openBrowser(db, {
      columns: 80,
      rows: 24,
      noColor: true,
      now: () => NOW_MS,
      database: 'flightrec-demo.db',
      prepare: async (source) => {
        await source.prepareTimeline();
        const found = incidentStart(source);
        if (found === undefined) throw new Error('the demo recording has no error event');
        return { start: found.view, position: found.position };
      },
    });
    open.push(b);
    await tick(50);
    const frame = docFrame(b.frame());
    expect(frame.length).toBe(23);
    checkBlock('README.md', 'browse --incident`):', (l) => l.startsWith('```'), frame);
  }, 60_000);

  it("docs/cli.md's browse example is what browse --view upgrade draws on a 100×20 terminal", async () => {
    const b = await openBrowser(db, {
      columns: 100,
      rows: 20,
      noColor: true,
      now: () => NOW_MS,
      database: 'docs-demo.db',
      props: { start: { kind: 'upgrade' } },
    });
    open.push(b);
    // the upgrade view reads the members' versions over the whole history
    for (let i = 0; i < 100 && !b.frame().includes('VERSIONS OVER TIME'); i++) await tick(20);
    checkBlock(
      'docs/cli.md',
      '$ flightrec --db docs-demo.db browse --view upgrade',
      (l) => l.startsWith('$ flightrec --db docs-demo.db browse < /dev/null'),
      docFrame(b.frame()),
    );
  }, 60_000);
});
