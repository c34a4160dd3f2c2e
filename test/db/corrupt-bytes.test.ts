/**
 * Decoders of stored bytes on damaged input: every read past a blob's end, every count larger
 * than its data, every id list that does not inflate ends in a CorruptDataError, and a fuzz of
 * flipped bytes in real chunk groups always terminates. A read of a varint that runs off its
 * blob used to loop forever (the readers' 100% CPU hang): the buffer here counts element reads
 * and gives up after a bound, so a regression fails instead of hanging the suite.
 */
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter } from '../../src/db/encoding/bytes.ts';
import {
  encodeChunkGroups,
  readBatchChunks,
  readChunk,
  readChunkGroup,
  readSampleAt,
  scanChunkIdle,
  type IdleSamples,
} from '../../src/db/connections/chunk.ts';
import { readTotalsExact, readTotalsFast, totalsTarget } from '../../src/db/connections/chunk-totals.ts';
import { readHeadEntry, type FastSample } from '../../src/db/connections/codec.ts';
import { CorruptDataError } from '../../src/db/errors.ts';
import { decodeIdList, encodeIdList } from '../../src/db/encoding/sql-values.ts';
import { prng } from '../helpers/connection-answers.ts';

/** A view of `bytes` whose element reads throw after `limit` (a decoder that does not end is caught, not waited for). */
function counted(bytes: readonly number[], limit = 10_000): Uint8Array {
  const real = Uint8Array.from(bytes);
  let reads = 0;
  return new Proxy(real, {
    get(target, key) {
      if (typeof key === 'string' && /^[0-9]+$/.test(key) && ++reads > limit)
        throw new Error(`runaway decoder: more than ${limit} byte reads`);
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

describe('ByteReader bounds', () => {
  it('a varint running off the end of its blob is CorruptDataError, for every reader method', () => {
    const runOff = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
    for (const read of [
      (r: ByteReader) => r.num(),
      (r: ByteReader) => r.uint(),
      (r: ByteReader) => r.big(),
      (r: ByteReader) => r.int(),
      (r: ByteReader) => r.time(),
      (r: ByteReader) => r.skipVarint(),
      (r: ByteReader) => r.skipString(),
    ]) {
      expect(() => read(new ByteReader(counted(runOff)))).toThrow(CorruptDataError);
      expect(() => read(new ByteReader(counted([])))).toThrow(CorruptDataError);
      expect(() => read(new ByteReader(counted([0x80])))).toThrow(CorruptDataError);
    }
  });

  it('strings, counts and offset-table entries are checked against the bytes left', () => {
    const w = new ByteWriter();
    w.string('abcdef');
    const bytes = w.finish();
    expect(() => new ByteReader(bytes.subarray(0, 4)).string()).toThrow(/runs past the end/);
    expect(() => new ByteReader(Uint8Array.of(0xff, 0xff, 0xff, 0x0f, 1, 2)).string()).toThrow(CorruptDataError);
    expect(new ByteReader(Uint8Array.of(3, 65)).string()).toBe('A'); // one UTF-16 code unit as a varint
    expect(() => new ByteReader(Uint8Array.of(7, 65)).string()).toThrow(CorruptDataError); // three announced, one there
    expect(() => new ByteReader(bytes.subarray(0, 4)).skipString()).toThrow(/runs past the end/);
    expect(() => new ByteReader(Uint8Array.of(7, 65)).skipString()).toThrow(CorruptDataError);
    const skipped = new ByteReader(Uint8Array.of(...bytes, 5, 0xe8, 0x07, 0x41, 9));
    skipped.skipString();
    skipped.skipString(); // two code units as varints
    expect(skipped.uint()).toBe(9);
    expect(() => new ByteReader(Uint8Array.of(200, 1, 0, 0)).count()).toThrow(/exceeds the 2 bytes left/);
    expect(new ByteReader(Uint8Array.of(2, 0, 0)).count()).toBe(2);
    expect(() => new ByteReader(Uint8Array.of(1, 2, 3)).u32At(0)).toThrow(CorruptDataError);
    expect(() => new ByteReader(Uint8Array.of(1, 2, 3, 4)).u32At(-4)).toThrow(CorruptDataError);
  });

  it('an id list that does not inflate, or holds fewer ids than its row count, is CorruptDataError naming conn_frame', () => {
    const list = encodeIdList([5, 6, 9, 1000]);
    expect(decodeIdList(list, 4)).toEqual([5, 6, 9, 1000]);
    expect(() => decodeIdList(list, 5)).toThrow(CorruptDataError);
    expect(() => decodeIdList(list, 2 ** 40)).toThrow(/conn_frame/);
    expect(() => decodeIdList(Uint8Array.of(0xff, 0xff, 0x00), 1)).toThrow(/does not inflate/);
  });
});

const sample = (x: number, k: number): FastSample => ({
  v: [x * 1000 + k * 7, x * 2 + k, 3, 4 + k, 5, 0, 0, (x * k) % 7, 1],
  hasMore: x % 2 === 0,
  inflight:
    k % 3 === 0
      ? [
          [1, 250 + x],
          [18, 2 ** 40 + k],
        ]
      : undefined,
  extra: x % 5 === 0 ? '{"totalRequestStatistics":{"x":1}}' : undefined,
  absent: 0,
  items: undefined,
});

describe('chunk decoders on flipped bytes', () => {
  it('always terminate, with a result or a CorruptDataError (2,000 seeded cases)', () => {
    const entities = Array.from({ length: 12 }, (_, i) => 10 + i * 3);
    const groups = encodeChunkGroups(entities, (e) => ({
      seqs: [0, 1, 2, 4, 5, 7],
      samples: [0, 1, 2, 4, 5, 7].map((k) => sample(e, k)),
    }));
    const rnd = prng(9);
    let failures = 0;
    for (let c = 0; c < 2000; c++) {
      const g = groups[c % groups.length]!.data;
      const flipped = [...g];
      const flips = 1 + Math.floor(rnd() * 3);
      for (let i = 0; i < flips; i++) flipped[Math.floor(rnd() * flipped.length)] = Math.floor(rnd() * 256);
      const bytes = counted(flipped, 200_000);
      const decode = (): void => {
        const group = readChunkGroup(bytes);
        const stride = 8;
        const into: IdleSamples = {
          present: new Uint8Array(group.entities.length * stride),
          idle: new Float64Array(group.entities.length * stride),
          bigIdle: new Map(),
          inFlightAt: new Int32Array(group.entities.length * stride),
          inFlightGroup: new Int32Array(group.entities.length * stride),
        };
        for (let k = 0; k < group.entities.length; k++) {
          group.reader.pos = group.starts[k]!;
          readChunk(group.reader);
          group.reader.pos = group.starts[k]!;
          readSampleAt(group.reader, 4);
          scanChunkIdle(group, 0, k, into, k * stride, stride);
          const t = totalsTarget(stride, stride - 1, [2, 3], into.present);
          readTotalsFast(group, k, k * stride, t, [
            new Float64Array(into.present.length),
            new Float64Array(into.present.length),
          ]);
          readTotalsExact(group, k, k * stride, t, [[], []]);
        }
        readBatchChunks(bytes);
      };
      try {
        decode();
      } catch (err) {
        failures++;
        if (!(err instanceof CorruptDataError)) expect.fail(`case ${c}: ${String((err as Error).stack)}`);
      }
    }
    expect(failures).toBeGreaterThan(100);
  });

  it('a head entry of random bytes ends (read or CorruptDataError)', () => {
    const rnd = prng(4);
    for (let c = 0; c < 2000; c++) {
      const bytes = Array.from({ length: 1 + Math.floor(rnd() * 40) }, () => Math.floor(rnd() * 256));
      try {
        readHeadEntry(new ByteReader(counted(bytes)));
      } catch (err) {
        if (!(err instanceof CorruptDataError))
          expect.fail(`case ${c} (${bytes.join(',')}): ${String((err as Error).stack)}`);
      }
    }
  });
});
