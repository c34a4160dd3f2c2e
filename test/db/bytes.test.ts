import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter, nanosFromParts } from '../../src/db/encoding/bytes.ts';

const NS = 1_000_000_000n;

/** Deterministic pseudo-random integers (xorshift), so a failure names a reproducible value. */
function* randomInts(seed: number, n: number): Generator<number> {
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    yield x >>> 0;
  }
}

describe('times in the byte encoding', () => {
  it('nanosFromParts equals sec * 10^9 + nano exactly across its whole range', () => {
    const edges = [0, 1, 65_535, 65_536, 65_537, 1_756_641_078, 2 ** 32 - 1, 2 ** 32, 2 ** 33 - 1];
    const nanos = [0, 1, 999_999_999, 123_456_789, 4_294_967_295 % 1e9];
    for (const sec of edges)
      for (const nano of nanos) expect(nanosFromParts(sec, nano)).toBe(BigInt(sec) * NS + BigInt(nano));
    const r = [...randomInts(7, 4000)];
    for (let i = 0; i < r.length; i += 2) {
      const sec = (r[i]! * 2) % 2 ** 33;
      const nano = r[i + 1]! % 1e9;
      expect(nanosFromParts(sec, nano)).toBe(BigInt(sec) * NS + BigInt(nano));
    }
  });

  it('round-trips every kind of time: zero, negative, recent, beyond 2^33 s and the int64 extremes', () => {
    const values = [
      0n,
      1n,
      999_999_999n,
      1_000_000_000n,
      1_756_641_078_158_214_310n,
      -1n,
      -1_756_641_078_158_214_310n,
      2n ** 33n * NS - 1n,
      2n ** 33n * NS,
      2n ** 63n - 1n,
      -(2n ** 63n),
      2n ** 70n + 12_345n,
    ];
    const w = new ByteWriter(16);
    for (const v of values) w.time(v);
    const r = new ByteReader(w.finish());
    for (const v of values) expect(r.time()).toBe(v);
    expect(r.atEnd()).toBe(true);
  });
});
