/**
 * The narrow reads of counter trends, at their edges: the versions (connections/counter-versions.ts)
 * hold the same values as the full rows whatever the slow parts hold (absent and unknown fields,
 * lone surrogates, times beyond int64 nanoseconds, an unknown state, a uid listed twice) on both
 * engines, and a damaged record is a CorruptDataError naming its table; the totals of a chunk
 * (connections/chunk-totals.ts) are read the same in plain numbers and exactly, up to the
 * sequence asked for, and values beyond 2^51 send the reader to the exact path.
 */
import { describe, expect, it } from 'vitest';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import { encodeChunkGroups, readChunk, readChunkGroup } from '../../src/db/connections/chunk.ts';
import { readTotalsExact, readTotalsFast, totalsTarget } from '../../src/db/connections/chunk-totals.ts';
import { FAST, type FastSample } from '../../src/db/connections/codec.ts';
import { ByteReader, type Num } from '../../src/db/encoding/bytes.ts';
import { CorruptDataError } from '../../src/db/errors.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { cloneConnection, generateConnectionPolls } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { counterFields } from './counter-records.ts';
import { LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';

const MIN = 60_000_000_000n;
const ALL = { since: 0n, until: 2n ** 62n, counters: ['produceBytes'] as const };

/** Five answers of six connections whose slow parts sit at the edges (a uid listed twice, changing values). */
function edgeAnswers(): { connections: KafkaConnection[]; totalSize: bigint }[] {
  const rows = generateConnectionPolls({ connections: 6, polls: 1, seed: 3 })[0]!.answer.connections;
  return [0, 1, 2, 3, 4].map((v) => {
    const cs = rows.map(cloneConnection);
    cs[1] = cloneConnection(cs[0]!); // the same uid twice
    cs[2]!.uid = `odd-\ud83d-${v > 2 ? 'x' : 'y'}`; // a lone surrogate (the uid changes at v = 3)
    cs[2]!.clientId = 'client-\udfff-ü';
    cs[2]!.source = { ipAddress: '::1\ud800', port: 65_535 };
    cs[2]!.groupMemberId = `member-\ud800-${v}`; // a skipped inline string of code units
    cs[3]!.nodeId = v % 2 === 0 ? -1 : 2_147_483_647;
    cs[3]!.authenticationInfo = { ...cs[3]!.authenticationInfo, userPrincipal: '' };
    cs[3]!.authenticationInfo.$absent = ['userPrincipal'];
    cs[3]!.groupId = '';
    cs[3]!.$absent = ['groupId', 'clientSoftwareVersion'];
    cs[3]!.clientSoftwareVersion = '';
    cs[4]!.openTime = 253_402_300_799_999_999_999n; // 9999-12-31, beyond int64 nanoseconds
    cs[4]!.closeTime = -62_135_596_800_000_000_000n; // 0001-01-01
    cs[4]!.state = (v < 2 ? 'KAFKA_CONNECTION_STATE_FUTURE' : 'KAFKA_CONNECTION_STATE_CLOSED') as never;
    cs[5]!.$unknown = { later: { field: [1, 'two'] } }; // unknown fields: a version record with its JSON
    cs[5]!.source = { ...cs[5]!.source, $unknown: { zone: 'b' } };
    cs[5]!.apiVersions = { '007': 1, '-1': 2, '3': 4 };
    return { connections: v === 4 ? cs.slice(0, 3) : cs, totalSize: 6n };
  });
}

forEachEngine('counter versions at the edges', (engine) => {
  it('hold the values of the full rows, poll by poll', async () => {
    const db = openDatabase(await engine.target());
    const writer = createHistoryWriter(db, { batchFrames: 2 });
    edgeAnswers().forEach((a, i) =>
      writer.writePoll(okRecord('ListKafkaConnections', a, { at: BigInt(i) * MIN, request: LIST_REQUEST })),
    );
    const reader = createHistoryReader(db);
    const rows = new Map<bigint, KafkaConnection[]>();
    for (const s of reader.samples('connections', ALL)) {
      rows.set(s.poll.id, [...(rows.get(s.poll.id) ?? []), s.row as KafkaConnection]);
    }
    const frames = [...reader.connectionCounters(ALL)];
    expect(frames.length).toBe(5);
    for (const f of frames) {
      const full = rows.get(f.poll.id)!;
      expect(f.versions.map(({ versionId: _v, entityId: _e, ...fields }) => fields)).toStrictEqual(
        full.map(counterFields),
      );
      expect(Array.from(f.totals[0]!, (t) => BigInt(t))).toEqual(
        full.map((c) => c.totalRequestStatistics.produceBytes),
      );
    }
    writer.close();
  });
});

describe('counter versions on damaged records', () => {
  it('a record cut short, or whose entity record is another, is a CorruptDataError naming conn_version', () => {
    for (const damage of [
      'UPDATE conn_version SET packed = substr(packed, 1, 4)',
      "UPDATE conn_version SET packed = CAST(x'ffffffffffffffffff' AS BLOB)",
      "UPDATE conn_version SET packed = CAST(x'0163' AS BLOB) || substr(packed, 3)",
    ]) {
      const path = tempDbPath();
      const db = openDatabase(path);
      const writer = createHistoryWriter(db, { batchFrames: 2 });
      edgeAnswers().forEach((a, i) =>
        writer.writePoll(okRecord('ListKafkaConnections', a, { at: BigInt(i) * MIN, request: LIST_REQUEST })),
      );
      writer.close();
      const damaged = openDatabase(path);
      damaged.sqlite.prepare(damage).run();
      const read = (): unknown => [...createHistoryReader(damaged).connectionCounters(ALL)];
      expect(read).toThrow(CorruptDataError);
      expect(read).toThrow(/conn_version/);
      damaged.close();
    }
  });
});

/** A sample whose totals are `t` (fetchBytes, produceBatchCount, produceBytes, requestCount). */
function sample(t: readonly Num[], k: number): FastSample {
  return {
    v: [k * 3, ...t, k, 0, k * 2, 1],
    hasMore: k % 2 === 0,
    inflight: k % 3 === 0 ? [[1, 250 + k]] : undefined,
    extra: k % 4 === 1 ? '{"totalRequestStatistics":{"x":1}}' : undefined,
    absent: 0,
    items: undefined,
  };
}

describe('chunk totals', () => {
  const STRIDE = 8;
  const SEQS = [0, 1, 2, 4, 5, 7];
  /** plain: below 2^47; long: 2^50, a number whose varint is too long for plain arithmetic; huge: beyond 2^53 */
  type Sizes = 'plain' | 'long' | 'huge';
  const totalsOf = (e: number, k: number, sizes: Sizes): Num[] => [
    e * 1000 + k,
    k === 5 ? 0 : e + k, // down to zero: a reset
    sizes === 'huge' && e === 13 && k >= 4 ? 2n ** 53n + BigInt(k) : (sizes === 'long' ? 2 ** 50 : 2 ** 46) - 1 - k,
    k * k,
  ];

  function read(sizes: Sizes, last: number, slots: number[]): { fast: boolean; got: Num[][]; reference: Num[][] } {
    const entities = [10, 13, 17];
    const groups = encodeChunkGroups(entities, (e) => ({
      seqs: SEQS,
      samples: SEQS.map((k) => sample(totalsOf(e, k, sizes), k)),
    })).map((g) => readChunkGroup(g.data));
    const size = entities.length * STRIDE;
    const present = new Uint8Array(size);
    const t = totalsTarget(STRIDE, last, slots, present);
    const fastValues = slots.map(() => new Float64Array(size));
    const exact = slots.map(() => new Array<Num>(size).fill(0));
    let fast = true;
    let base = 0;
    for (const g of groups) {
      for (let k = 0; k < g.entities.length; k++, base += STRIDE) {
        fast = readTotalsFast(g, k, base, t, fastValues) && fast;
        readTotalsExact(g, k, base, t, exact);
      }
    }
    // the reference: every sample decoded in full
    const reference = slots.map(() => new Array<Num>(size).fill(0));
    base = 0;
    for (const g of groups) {
      for (let k = 0; k < g.entities.length; k++, base += STRIDE) {
        const c = readChunk(new ByteReader(g.data, g.starts[k]));
        c.seqs.forEach((seq, s) => {
          if (seq <= last) slots.forEach((slot, i) => (reference[i]![base + seq] = c.samples[s]!.v[slot]!));
        });
        for (let seq = 0; seq < STRIDE; seq++)
          expect(present[base + seq]).toBe(SEQS.includes(seq) && seq <= last ? 1 : 0);
      }
    }
    if (fast) expect(fastValues.map((v) => [...v])).toEqual(exact);
    return { fast, got: exact, reference };
  }

  it('in plain numbers and exactly, every counter and any two, up to the last sequence asked for', () => {
    for (const slots of [
      [FAST.total.produceBytes],
      [FAST.total.produceBytes, FAST.total.produceBatchCount],
      [1, 2, 3, 4],
    ]) {
      for (const last of [0, 3, 4, 7]) {
        const { fast, got, reference } = read('plain', last, slots);
        expect(fast).toBe(true);
        expect(got).toEqual(reference);
      }
    }
  });

  it('values beyond 2^51, or of varints too long for plain arithmetic, are read exactly; the plain reader gives up', () => {
    const huge = read('huge', 7, [FAST.total.produceBytes]);
    expect(huge.fast).toBe(false);
    expect(huge.got).toEqual(huge.reference);
    expect(huge.got[0]!.some((v) => typeof v === 'bigint')).toBe(true);
    const long = read('long', 7, [FAST.total.produceBytes, FAST.total.requestCount]);
    expect(long.fast).toBe(false);
    expect(long.got).toEqual(long.reference);
    expect(long.got[0]!.every((v) => typeof v === 'number')).toBe(true);
  });
});
