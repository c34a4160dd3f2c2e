import { describe, expect, it } from 'vitest';
import { IdCache, PAGE_SIZE } from '../../src/db/encoding/id-cache.ts';

describe('IdCache', () => {
  it('holds values by id across page boundaries, far-apart ids and id 0', () => {
    const c = new IdCache<string>();
    const ids = [0, 1, PAGE_SIZE - 1, PAGE_SIZE, PAGE_SIZE + 1, 5 * PAGE_SIZE + 3, 1_000_003, 2 ** 32 - 1];
    for (const id of ids) c.set(id, `v${id}`);
    for (const id of ids) expect(c.get(id)).toBe(`v${id}`);
    expect(c.size).toBe(ids.length);
    for (const id of [2, PAGE_SIZE + 2, 999_999, 2 ** 31]) {
      expect(c.get(id)).toBeUndefined();
      expect(c.has(id)).toBe(false);
    }
  });

  it('counts an id once when it is set again, and forgets everything on clear', () => {
    const c = new IdCache<number>();
    c.set(7, 1);
    c.set(7, 2);
    expect(c.get(7)).toBe(2);
    expect(c.size).toBe(1);
    c.clear();
    expect(c.get(7)).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('refuses what is not a row id', () => {
    const c = new IdCache<number>();
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 32]) expect(() => c.set(bad, 1)).toThrow(/not a row id/);
  });
});
