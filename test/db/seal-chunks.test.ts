import { describe, expect, it } from 'vitest';
import { CHUNK_GROUP_BYTES, encodeChunkGroups, PG_CHUNK_GROUP_BYTES } from '../../src/db/connections/chunk.ts';
import { HEAD_STRIDE, readHeadEntry, writeHeadEntry, type FastSample } from '../../src/db/connections/codec.ts';
import { sealChunkGroups, type HeadFrame } from '../../src/db/connections/seal.ts';
import { ByteReader, ByteWriter } from '../../src/db/encoding/bytes.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';

/** A head blob as the ingest writes it: entries, an offset every HEAD_STRIDE entries, the count. */
function headOf(entries: readonly { entity: number; c: Parameters<typeof writeHeadEntry>[2] }[]): Buffer {
  const w = new ByteWriter(64);
  const offsets: number[] = [];
  entries.forEach(({ entity, c }, i) => {
    if (i % HEAD_STRIDE === 0) offsets.push(w.length);
    writeHeadEntry(w, entity, c);
  });
  for (const o of offsets) w.u32(o);
  w.u32(entries.length);
  return w.finish();
}

/** The seal as it was: every entry of every head decoded, grouped per entity, then encoded. */
function referenceSeal(
  frames: readonly HeadFrame[],
  damaged: number[],
  budget: number,
): { first: number; data: Buffer }[] {
  const per = new Map<number, { seqs: number[]; samples: FastSample[] }>();
  for (const f of frames) {
    if (f.head === null) continue;
    let entries: { entity: number; sample: FastSample }[];
    try {
      const r = new ByteReader(f.head);
      const count = r.u32At(f.head.length - 4);
      entries = new Array<{ entity: number; sample: FastSample }>(count);
      for (let i = 0; i < count; i++) entries[i] = readHeadEntry(r);
    } catch {
      damaged.push(f.poll);
      continue;
    }
    for (const { entity, sample } of entries) {
      let g = per.get(entity);
      if (g === undefined) per.set(entity, (g = { seqs: [], samples: [] }));
      g.seqs.push(f.seq);
      g.samples.push(sample);
    }
  }
  const ids = [...per.keys()].sort((a, b) => a - b);
  return encodeChunkGroups(ids, (id) => per.get(id)!, budget);
}

/** Head frames of generated polls: entity ids by uid, answer order kept (shuffled when asked). */
function framesOf(opts: {
  polls: number;
  shuffle?: boolean;
  unknownFields?: boolean;
  hugeCounters?: boolean;
}): HeadFrame[] {
  const ids = new Map<string, number>();
  return generateConnectionPolls({ connections: 300, churn: 0.05, seed: 7, nodes: 3, ...opts }).map((p, seq) => ({
    poll: 100 + seq,
    seq,
    head: headOf(
      p.answer.connections.map((c) => {
        let id = ids.get(c.uid);
        if (id === undefined) ids.set(c.uid, (id = 100_000 - ids.size * 3)); // descending ids: the seal sorts them
        return { entity: id, c };
      }),
    ),
  }));
}

describe('sealChunkGroups', () => {
  const cases = [
    { name: 'plain answers', frames: framesOf({ polls: 8 }) },
    {
      name: 'shuffled answers, unknown fields, int64 edges',
      frames: framesOf({ polls: 8, shuffle: true, unknownFields: true, hugeCounters: true }),
    },
  ];
  for (const { name, frames } of cases) {
    for (const budget of [CHUNK_GROUP_BYTES, PG_CHUNK_GROUP_BYTES]) {
      it(`writes the chunks the per-sample seal wrote: ${name}, budget ${budget}`, () => {
        const damaged: number[] = [];
        const got = sealChunkGroups(frames, damaged, budget);
        expect(got.length).toBeGreaterThan(1);
        expect(damaged).toEqual([]);
        expect(got).toEqual(referenceSeal(frames, [], budget));
      });
    }
  }

  it('leaves out a cleared head, and a damaged one whole, naming its poll', () => {
    const frames = framesOf({ polls: 6, unknownFields: true });
    const cut = frames[2]!.head!;
    // the entries run into the offset table: the last entries of the head no longer decode
    const damagedHead = Buffer.concat([cut.subarray(0, Math.floor(cut.length / 2)), cut.subarray(cut.length - 4)]);
    const mixed: HeadFrame[] = frames.map((f, i) =>
      i === 1 ? { ...f, head: null } : i === 2 ? { ...f, head: damagedHead } : f,
    );
    const damaged: number[] = [];
    const expected: number[] = [];
    const got = sealChunkGroups(mixed, damaged, CHUNK_GROUP_BYTES);
    expect(got).toEqual(referenceSeal(mixed, expected, CHUNK_GROUP_BYTES));
    expect(damaged).toEqual([frames[2]!.poll]);
    expect(damaged).toEqual(expected);
  });

  it('seals nothing from heads that are all cleared or too short to hold a count', () => {
    const damaged: number[] = [];
    const frames: HeadFrame[] = [
      { poll: 1, seq: 0, head: null },
      { poll: 2, seq: 1, head: Buffer.from([1, 2]) },
    ];
    expect(sealChunkGroups(frames, damaged, CHUNK_GROUP_BYTES)).toEqual([]);
    expect(damaged).toEqual([2]);
  });
});
