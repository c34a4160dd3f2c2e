import { describe, expect, it } from 'vitest';
import { IdVerdicts, VERDICT_PAGE_SIZE } from '../../src/db/encoding/id-verdicts.ts';

/** The verdict loop IdVerdicts.claim replaces (the reader's before it): every unknown id in range, then each recorded failing. */
function claimedBefore(verdicts: Map<number, boolean>, ids: readonly number[], max: number): number[] {
  const unknown: number[] = [];
  for (const id of ids) if (verdicts.get(id) === undefined && id >= 0 && id <= max) unknown.push(id);
  for (const id of unknown) verdicts.set(id, false);
  return unknown;
}

describe('IdVerdicts', () => {
  it('holds pass and fail by id across page boundaries, far-apart ids and id 0', () => {
    const v = new IdVerdicts();
    const ids = [0, 1, VERDICT_PAGE_SIZE - 1, VERDICT_PAGE_SIZE, 5 * VERDICT_PAGE_SIZE + 3, 1_000_003, 2 ** 32 - 1];
    ids.forEach((id, i) => v.set(id, i % 2 === 0));
    ids.forEach((id, i) => expect(v.get(id), String(id)).toBe(i % 2 === 0));
    for (const id of [2, VERDICT_PAGE_SIZE + 2, 999_999, 2 ** 31]) expect(v.get(id)).toBeUndefined();
    expect(v.passing).toBe(4);
    v.set(1, true);
    expect(v.get(1)).toBe(true);
    expect(v.passing).toBe(5);
    v.set(1, true);
    v.set(0, false);
    expect(v.passing).toBe(4);
    expect(new IdVerdicts().passing).toBe(0);
  });

  it('refuses what is not a row id', () => {
    const v = new IdVerdicts();
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 32]) expect(() => v.set(bad, true)).toThrow(/not a row id/);
    expect(() => v.claim([3, 2.5], 2 ** 32 - 1)).toThrow(/not a row id/);
  });

  it('claims the ids without a verdict once each, in order, records them failing, and skips ids out of range', () => {
    const v = new IdVerdicts();
    v.set(5, true);
    v.set(6, false);
    const ids = [9, 5, 6, 7, 9, -1, 2 ** 32, Number.NaN, 8, 7, 100_000, 40];
    expect(v.claim(ids, 2 ** 32 - 1)).toEqual([9, 7, 8, 100_000, 40]);
    for (const id of [9, 7, 8, 100_000, 40]) expect(v.get(id)).toBe(false);
    expect(v.get(5)).toBe(true);
    expect(v.claim(ids, 2 ** 32 - 1)).toEqual([]);
    expect(new IdVerdicts().claim([1, 50, 51, 3], 50)).toEqual([1, 50, 3]);
  });

  it('claims what the loop before it asked SQL about, without its repeats, and leaves the same verdicts', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const before = new Map<number, boolean>();
    const after = new IdVerdicts();
    for (let round = 0; round < 20; round++) {
      const ids = Array.from({ length: 500 }, () => (random(50) === 0 ? -1 - random(5) : random(20_000)));
      const asked = claimedBefore(before, ids, 2 ** 32 - 1);
      expect(after.claim(ids, 2 ** 32 - 1)).toEqual([...new Set(asked)]);
      const passing = asked.filter((id) => id % 3 === 0);
      for (const id of passing) {
        before.set(id, true);
        after.set(id, true);
      }
      for (const id of ids) expect(after.get(id)).toBe(before.get(id));
      expect(after.passing).toBe([...before.values()].filter((pass) => pass).length);
    }
  });
});
