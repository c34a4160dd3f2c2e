/**
 * One golden-file mechanism: vitest file snapshots (`toMatchFileSnapshot`), configured so that a
 * missing or different golden file fails everywhere (CI included) and is written only with `-u`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.ts';

const TEST = resolve(import.meta.dirname, '..');

/** Every test source under test/. */
function testSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : testSources(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

describe('golden files', () => {
  it('are never written implicitly: vitest runs with update "none" unless -u is given', () => {
    expect(config.test?.update).toBe('none');
  });

  it('have one mechanism: no test writes its own golden files', () => {
    const own = testSources(TEST).filter((path) => {
      if (path === import.meta.filename) return false;
      const text = readFileSync(path, 'utf8');
      return /UPDATE_GOLDEN|writeFileSync\([^)]*golden/i.test(text);
    });
    expect(own).toEqual([]);
  });
});
