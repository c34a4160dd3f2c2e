/**
 * Invariants of the frame id lists (deflated zigzag deltas, src/db/encoding/sql-values.ts), data-driven:
 * any list of ids round-trips in order; a count the bytes cannot hold, bytes that do not
 * inflate, and a deflate bomb are CorruptDataError naming the table, found in bounded time.
 */
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CorruptDataError } from '../../src/db/errors.ts';
import { decodeIdList, encodeIdList } from '../../src/db/encoding/sql-values.ts';

const LISTS: readonly [string, number[]][] = [
  ['empty', []],
  ['one', [1]],
  ['ascending', [1, 2, 3, 5, 8, 13, 21]],
  ['descending', [90, 50, 10, 1]],
  ['repeats', [7, 7, 7]],
  ['wide gaps', [1, 2 ** 31, 1, 2 ** 40, 3]],
  ['largest ids', [2 ** 51 - 1, 1, 2 ** 51 - 1]],
  ['many', Array.from({ length: 5000 }, (_, i) => 1 + i * 3)],
];

describe('frame id lists', () => {
  it.each(LISTS)('%s round-trips in order', (_name, ids) => {
    expect(decodeIdList(encodeIdList(ids), ids.length)).toEqual(ids);
  });

  it.each(LISTS.filter(([, ids]) => ids.length > 0))(
    '%s: a count one larger than stored is a CorruptDataError',
    (_name, ids) => {
      expect(() => decodeIdList(encodeIdList(ids), ids.length + 1)).toThrow(CorruptDataError);
    },
  );

  it('bytes that do not inflate are a CorruptDataError naming conn_frame', () => {
    const e = (() => {
      try {
        decodeIdList(Buffer.from([0xff, 0xff, 0xff, 0x00]), 3);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(CorruptDataError);
    expect(String((e as Error).message)).toMatch(/id list of 3 rows does not inflate/);
  });

  it('a deflate bomb is cut off at what the count can need', () => {
    const bomb = deflateRawSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100_000);
    expect(() => decodeIdList(bomb, 2)).toThrow(CorruptDataError);
  });

  it('a negative count is refused; a smaller one reads the first ids', () => {
    const blob = encodeIdList([1, 2, 3]);
    expect(() => decodeIdList(blob, -1)).toThrow(CorruptDataError);
    expect(decodeIdList(blob, 2)).toEqual([1, 2]);
  });
});
