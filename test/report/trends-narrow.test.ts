/**
 * Counter trends and connection counts over the store's narrow read (HistoryReader.connectionCounters)
 * give exactly the answer of the same trends over full samples: every such metric by every key, on a
 * recording with counters at the edges of int64, a reset, a fan-out round, a failed poll and an
 * empty answer, with batches sealed and open, on both engines.
 */
import { expect, it } from 'vitest';
import { createHistoryReader, createHistoryWriter, openDatabase, type HistoryReader } from '../../src/db/index.ts';
import { computeTrends, METRICS, type MetricName, type TrendsSource } from '../../src/report/trends/index.ts';
import { counterRecords } from '../db/counter-records.ts';
import { forEachEngine } from '../helpers/pg.ts';

const CONNECTION_METRICS: MetricName[] = [
  'produce-bytes',
  'fetch-bytes',
  'requests',
  'batches',
  'batch-size',
  'connections',
];

/** The reader, counting its narrow reads and its full connection samples. */
function counted(reader: HistoryReader): { source: TrendsSource; narrow: number; full: number } {
  const c = {
    narrow: 0,
    full: 0,
    source: {
      polls: (q) => reader.polls(q),
      samples: (resource, q) => {
        if (resource === 'connections') c.full++;
        return reader.samples(resource, q);
      },
      rollups: () => reader.rollups(),
      connectionCounters: (q) => {
        c.narrow++;
        return reader.connectionCounters(q);
      },
    } satisfies TrendsSource,
  };
  return c;
}

/** The reader without its narrow read: trends read full samples. */
function fullOnly(reader: HistoryReader): TrendsSource {
  return { polls: (q) => reader.polls(q), samples: (r, q) => reader.samples(r, q), rollups: () => reader.rollups() };
}

function expectSameTrends(reader: HistoryReader, window: { since?: bigint; until?: bigint }): void {
  for (const metric of CONNECTION_METRICS) {
    for (const by of METRICS[metric].keys) {
      const narrow = counted(reader);
      const got = computeTrends(narrow.source, { metric, by, ...window });
      expect([narrow.narrow, narrow.full]).toEqual([1, 0]);
      expect(got).toEqual(computeTrends(fullOnly(reader), { metric, by, ...window }));
      expect(got.rows.length).toBeGreaterThan(0);
    }
  }
}

forEachEngine('counter trends and connection counts over the narrow read', (engine) => {
  it('equal the trends over full samples, for every connection metric and key', async () => {
    const path = await engine.target();
    const db = openDatabase(path);
    const writer = createHistoryWriter(db, { batchFrames: 4 });
    for (const r of counterRecords()) writer.writePoll(r);
    const reader = createHistoryReader(db);
    const all = computeTrends(reader, { metric: 'fetch-bytes', by: 'connection' });
    // the recording has what the narrow read must keep exact
    expect(all.notes.some((n) => /counter resets seen/.test(n))).toBe(true);
    expect(all.rows.some((r) => BigInt(r.detail.increase as string) > 2n ** 53n)).toBe(true);
    expectSameTrends(reader, {});
    const polls = reader.polls({});
    expectSameTrends(reader, { since: polls[6]!.startTime, until: polls[18]!.startTime });
    writer.close();
    const sealed = openDatabase(path, { readonly: true });
    expectSameTrends(createHistoryReader(sealed), {});
    sealed.close();
    // PostgreSQL: 7 s alone, 21-34 s in CI next to the other files on 2 cores (the default 30 s cut it)
  }, 120_000);
});
