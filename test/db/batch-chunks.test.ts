import { describe, expect, it } from 'vitest';
import {
  CHUNK_GROUP_BYTES,
  chunkIn,
  encodeChunkGroups,
  PG_CHUNK_GROUP_BYTES,
  readBatchChunks,
  readChunk,
  writeChunk,
} from '../../src/db/connections/chunk.ts';
import type { FastSample } from '../../src/db/connections/codec.ts';
import { ByteWriter } from '../../src/db/encoding/bytes.ts';

const sample = (x: number): FastSample => ({
  v: [x, x * 2, 3, 4, 5, 0, 0, x % 7, 1],
  hasMore: x % 2 === 0,
  inflight: undefined,
  extra: undefined,
  absent: 0,
  items: undefined,
});
const chunkFor = (e: number): { seqs: number[]; samples: FastSample[] } => ({
  seqs: [0, 2, 5],
  samples: [sample(e), sample(e + 1), sample(e + 2)],
});

describe('a batch chunk directory', () => {
  const entities = Array.from({ length: 300 }, (_, i) => 10 + i * 3);
  const groups = encodeChunkGroups(entities, chunkFor);
  const blob = Buffer.concat(groups.map((g) => g.data));

  it('finds every entity of the concatenated groups, and no other', () => {
    expect(groups.length).toBeGreaterThan(1);
    const dir = readBatchChunks(blob);
    expect(dir.entities.length).toBe(entities.length);
    for (const e of entities) {
      const r = chunkIn(dir, e);
      expect(r, `entity ${e}`).toBeDefined();
      expect(readChunk(r!)).toEqual(chunkFor(e));
    }
    for (const e of [0, 11, 12, 10 + 300 * 3]) expect(chunkIn(dir, e)).toBeUndefined();
  });

  it('is empty for a batch without chunks', () => {
    expect(readBatchChunks(new Uint8Array(0)).entities.length).toBe(0);
  });

  it('refuses groups out of entity order and a truncated blob, naming the problem', () => {
    const swapped = Buffer.concat([groups[1]!.data, groups[0]!.data]);
    expect(() => readBatchChunks(swapped)).toThrow(/out of entity order/);
    expect(() => readBatchChunks(blob.subarray(0, blob.length - 3))).toThrow(/overrun/);
  });
});

describe('chunk group budgets', () => {
  const entities = Array.from({ length: 2000 }, (_, i) => 1 + i * 2);
  // eight samples of a busy connection (about 100 bytes a chunk): groups close on the budget, not on CHUNK_GROUP_MAX
  const busy = (e: number): { seqs: number[]; samples: FastSample[] } => ({
    seqs: [0, 1, 2, 3, 4, 5, 6, 7],
    samples: Array.from({ length: 8 }, (_, k) => sample(e * 7919 + k * 104_729 * ((e % 5) + 1))),
  });
  it.each([
    ['SQLite', CHUNK_GROUP_BYTES],
    ['PostgreSQL', PG_CHUNK_GROUP_BYTES],
  ])('keeps every %s group within its budget, and fills them close to it', (_engine, budget) => {
    const groups = encodeChunkGroups(entities, busy, budget);
    const sizes = groups.map((g) => g.data.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(budget);
    // every group but the last was closed because the next chunk would not fit (the budget counts
    // 4 bytes of directory per chunk, where the varints take 2 or 3)
    const largest = Math.max(...entities.map((e) => encodeChunkGroups([e], busy)[0]!.data.length));
    for (const n of sizes.slice(0, -1)) expect(n).toBeGreaterThan(budget - 2 * largest - 16);
    const dir = readBatchChunks(Buffer.concat(groups.map((g) => g.data)));
    expect(Array.from(dir.entities)).toEqual(entities);
  });
});

/** The groups as encoded before the chunks shared one writer: a buffer per chunk, then the group. */
function referenceGroups(
  entities: readonly number[],
  chunkOf: (e: number) => { seqs: number[]; samples: FastSample[] },
  budget: number,
): { first: number; data: Buffer }[] {
  const out: { first: number; data: Buffer }[] = [];
  let ids: number[] = [];
  let chunks: Uint8Array[] = [];
  let size = 0;
  const flush = (): void => {
    if (ids.length > 0) {
      const w = new ByteWriter();
      w.uint(ids.length);
      let prev = 0;
      for (const e of ids) {
        w.uint(e - prev);
        prev = e;
      }
      for (const c of chunks) w.uint(c.length);
      for (const c of chunks) w.bytes(c);
      out.push({ first: ids[0]!, data: w.finish() });
    }
    ids = [];
    chunks = [];
    size = 0;
  };
  for (const e of entities) {
    const w = new ByteWriter(256);
    const c = chunkOf(e);
    writeChunk(w, c.seqs, c.samples);
    const bytes = w.finish();
    if (ids.length > 0 && (size + bytes.length + 8 > budget || ids.length >= 64)) flush();
    ids.push(e);
    chunks.push(bytes);
    size += bytes.length + 4;
  }
  flush();
  return out;
}

describe('chunk groups written through one writer', () => {
  it('are byte for byte the groups of a buffer per chunk, at every budget and chunk size', () => {
    const entities = Array.from({ length: 700 }, (_, i) => 3 + i * 5);
    // chunk sizes from a few bytes to beyond a whole budget (a chunk alone in its group)
    const varied = (e: number): { seqs: number[]; samples: FastSample[] } => {
      const n = e % 97 === 0 ? 160 : 1 + (e % 9);
      return {
        seqs: Array.from({ length: n }, (_, k) => k),
        samples: Array.from({ length: n }, (_, k) => sample(e * 104_729 + k * 7919 * ((e % 3) + 1))),
      };
    };
    for (const budget of [0, 40, 300, CHUNK_GROUP_BYTES, PG_CHUNK_GROUP_BYTES, 1_000_000]) {
      for (const chunkOf of [chunkFor, varied]) {
        const got = encodeChunkGroups(entities, chunkOf, budget);
        const want = referenceGroups(entities, chunkOf, budget);
        expect(got.map((g) => g.first)).toEqual(want.map((g) => g.first));
        expect(Buffer.concat(got.map((g) => g.data)).equals(Buffer.concat(want.map((g) => g.data)))).toBe(true);
        expect(got.map((g) => g.data.length)).toEqual(want.map((g) => g.data.length));
      }
    }
    expect(encodeChunkGroups([], chunkFor)).toEqual([]);
  });
});
