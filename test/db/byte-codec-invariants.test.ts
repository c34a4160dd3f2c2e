/**
 * Invariants of the stored byte codec (src/db/encoding/bytes.ts), data-driven: every boundary value of
 * each varint, time and string form round-trips exactly and leaves the reader at the end of its
 * bytes; every strict prefix of an encoding (a truncated blob) is a CorruptDataError, never a
 * wrong value or a hang; numbers come back as numbers exactly in the fast zone (|v| < 2^51) and
 * as bigints outside it.
 */
import { describe, expect, it } from 'vitest';
import {
  ByteReader,
  ByteWriter,
  nanosFromParts,
  normal,
  subNum,
  textFromSql,
  textToSql,
  type Num,
} from '../../src/db/encoding/bytes.ts';
import { CorruptDataError } from '../../src/db/errors.ts';

const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);
const U64_MAX = 2n ** 64n - 1n;
const FAST = 2 ** 51;

/** One value of one codec form: how to write it, read it back, and what must come back. */
interface Case {
  readonly name: string;
  readonly write: (w: ByteWriter) => void;
  readonly read: (r: ByteReader) => unknown;
  readonly expected: unknown;
}

const uintCases: Case[] = [0, 1, 127, 128, 16_383, 16_384, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1].map(
  (n) => ({
    name: `uint ${n}`,
    write: (w) => w.uint(n),
    read: (r) => r.uint(),
    expected: n,
  }),
);

/** `int` holds |n| < 2^52 (its zigzag form must stay a safe integer). */
const intCases: Case[] = [0, -1, 1, -64, 63, -65, 64, -(2 ** 31), 2 ** 31 - 1, -(2 ** 52 - 1), 2 ** 52 - 1].map(
  (n) => ({ name: `int ${n}`, write: (w) => w.int(n), read: (r) => r.int(), expected: n }),
);

const bigValues: bigint[] = [
  0n,
  -1n,
  BigInt(FAST) - 1n,
  BigInt(FAST),
  -BigInt(FAST) + 1n,
  -BigInt(FAST),
  2n ** 53n + 1n,
  I64_MAX,
  I64_MIN,
  U64_MAX,
  -(2n ** 100n) - 7n,
];
const bigCases: Case[] = bigValues.map((v) => ({
  name: `big ${v}`,
  write: (w) => w.big(v),
  read: (r) => r.big(),
  expected: v,
}));

/** What `num()` must return for a value: a number in the fast zone, a bigint outside it. */
const numCases: Case[] = bigValues.map((v) => ({
  name: `num ${v}`,
  write: (w) => w.num(normal(v)),
  read: (r) => r.num(),
  expected: v < BigInt(FAST) && v > -BigInt(FAST) ? Number(v) : v,
}));

const timeValues: bigint[] = [
  0n,
  1n,
  -1n,
  999_999_999n,
  1_000_000_000n,
  -1_000_000_001n,
  1_767_225_600_123_456_789n,
  I64_MAX,
  I64_MIN,
  2n ** 33n * 1_000_000_000n,
];
const timeCases: Case[] = timeValues.map((v) => ({
  name: `time ${v}`,
  write: (w) => w.time(v),
  read: (r) => r.time(),
  expected: v,
}));

const strings: [string, string][] = [
  ['empty', ''],
  ['ascii', 'client-7'],
  ['leading BOM', '\uFEFFprincipal'],
  ['NUL inside', 'a\u0000b'],
  ['4-byte code point', 'topic-\u{1F680}'],
  ['lone high surrogate', 'x\uD800y'],
  ['lone low surrogate at the end', 'x\uDC00'],
  ['latin1 range', '\u00e9\u00ff'],
  ['long', 'k'.repeat(70_000)],
];
const stringCases: Case[] = strings.map(([name, s]) => ({
  name: `string ${name}`,
  write: (w) => w.string(s),
  read: (r) => r.string(),
  expected: s,
}));

const CASES: Case[] = [...uintCases, ...intCases, ...bigCases, ...numCases, ...timeCases, ...stringCases];

function encode(c: Case): Buffer {
  const w = new ByteWriter(4);
  c.write(w);
  return w.finish();
}

describe('the byte codec, boundary values', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s round-trips exactly and ends at the end', (_name, c) => {
    const bytes = encode(c);
    const r = new ByteReader(bytes);
    expect(c.read(r)).toStrictEqual(c.expected);
    expect(r.atEnd()).toBe(true);
    expect(r.pos).toBe(bytes.length);
  });

  it.each(CASES.filter((c) => encode(c).length <= 64).map((c) => [c.name, c] as const))(
    '%s: every truncation of it is a CorruptDataError',
    (_name, c) => {
      const bytes = encode(c);
      for (let cut = 0; cut < bytes.length; cut++) {
        expect(() => c.read(new ByteReader(bytes.subarray(0, cut))), `cut at ${cut} of ${bytes.length}`).toThrow(
          CorruptDataError,
        );
      }
    },
  );

  it('long strings truncated anywhere in their body are a CorruptDataError', () => {
    for (const c of stringCases.filter((s) => encode(s).length > 64)) {
      const bytes = encode(c);
      for (const cut of [0, 1, 2, 3, bytes.length >> 1, bytes.length - 1]) {
        expect(() => c.read(new ByteReader(bytes.subarray(0, cut)))).toThrow(CorruptDataError);
      }
    }
  });

  it('values written one after another read back in order, whatever their widths', () => {
    const w = new ByteWriter(1);
    for (const c of CASES) c.write(w);
    const r = new ByteReader(w.finish());
    for (const c of CASES) expect(c.read(r), c.name).toStrictEqual(c.expected);
    expect(r.atEnd()).toBe(true);
  });

  it('a count larger than the bytes left is refused before anything is allocated', () => {
    const w = new ByteWriter();
    w.uint(2 ** 40);
    w.uint(1);
    expect(() => new ByteReader(w.finish()).count()).toThrow(
      /a count of 1099511627776 at offset \d+ exceeds the 1 bytes left/,
    );
    const ok = new ByteWriter();
    ok.uint(3);
    ok.bytes(Uint8Array.of(1, 2, 3));
    expect(new ByteReader(ok.finish()).count()).toBe(3);
  });

  it('offset-table entries outside their blob are a CorruptDataError naming the offset', () => {
    const r = new ByteReader(Uint8Array.of(1, 2, 3, 4, 5));
    expect(r.u32At(1)).toBe(0x05040302);
    for (const off of [-1, 2, 5, Number.NaN]) expect(() => r.u32At(off)).toThrow(CorruptDataError);
  });
});

describe('numbers in and out of the fast zone', () => {
  it.each([
    [2 ** 50, -(2 ** 50), 2 ** 51],
    [FAST - 1, -(FAST - 1), 2n * BigInt(FAST - 1)],
    [0, FAST - 1, -(FAST - 1)],
  ] as [number, number, Num][])('subNum(%s, %s) is exact and normalised', (a, b, want) => {
    const got = subNum(a, b);
    expect(BigInt(got)).toBe(BigInt(want));
    expect(typeof got).toBe(BigInt(want) < BigInt(FAST) && BigInt(want) > -BigInt(FAST) ? 'number' : 'bigint');
  });

  it('nanosFromParts equals the bigint product at its boundaries', () => {
    for (const [sec, nano] of [
      [0, 0],
      [0, 999_999_999],
      [1, 0],
      [2 ** 33 - 1, 999_999_999],
      [1_767_225_600, 123_456_789],
      [65_535, 65_535],
      [65_536, 1],
    ]) {
      expect(nanosFromParts(sec!, nano!)).toBe(BigInt(sec!) * 1_000_000_000n + BigInt(nano!));
    }
  });
});

describe('text as SQLite holds it', () => {
  it.each(strings.filter(([, s]) => s.length < 100))('%s round-trips through textToSql/textFromSql', (_name, s) => {
    const stored = textToSql(s);
    expect(typeof stored === 'string' || Buffer.isBuffer(stored)).toBe(true);
    expect(textFromSql(stored)).toBe(s);
  });

  it('a value of another type in a text column is a CorruptDataError, not a TypeError', () => {
    for (const v of [42, 4.5, null, undefined, 10n, Buffer.from([0x61, 0x00, 0x62])])
      expect(() => textFromSql(v)).toThrow(CorruptDataError);
  });
});
