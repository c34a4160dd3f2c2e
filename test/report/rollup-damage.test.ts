/**
 * Raw history that does not decode (a damaged page) is left out of the rollups, and told: the
 * rollUp goes on past it, so that retention, which summarises before it prunes, still prunes.
 * Before, the rollUp failed at the damaged poll at every pass, retention never pruned again and
 * the store grew without bound.
 */
import { expect, it } from 'vitest';
import { createHistoryReader, createHistoryWriter, createRollupStore, openDatabase } from '../../src/db/index.ts';
import { createRollUp } from '../../src/report/rollup/index.ts';
import { LIST_REQUEST, okRecord, tempDbPath } from '../db/fixtures.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';

const MIN = 60_000_000_000n;
const START = 1_767_225_600_000_000_000n; // 2026-01-01T00:00:00Z, on a 5-minute boundary

it('leaves a damaged 5-minute bucket and hour of events out, tells which, and summarises the rest', async () => {
  const db = openDatabase(tempDbPath());
  const writer = createHistoryWriter(db, { batchFrames: 4 });
  const polls = generateConnectionPolls({ connections: 20, churn: 0.05, polls: 20, seed: 9 });
  const ids = polls.map((p, i) =>
    writer.writePoll(
      okRecord('ListKafkaConnections', p.answer, { at: START + BigInt(i) * MIN + 1n, request: LIST_REQUEST }),
    ),
  );
  writer.close();
  const rw = openDatabase(db.path);
  // minute 7's frame: its id list no longer inflates
  rw.sqlite.prepare('UPDATE conn_frame SET versions = ? WHERE poll = ?').run(Buffer.from([7, 7, 7]), ids[7]);
  const told: string[] = [];
  const store = createRollupStore(rw);
  await createRollUp(createHistoryReader(rw), store, { onDamage: (m) => told.push(m) })('prod', START + 15n * MIN);
  expect(told).toHaveLength(2);
  expect(told[0]).toMatch(
    /^rollups: the 5-minute bucket 2026-01-01T00:05:00Z to 2026-01-01T00:10:00Z of cluster prod left out: .*damaged \(table conn_frame, poll /,
  );
  expect(told[1]).toMatch(/^rollups: the events and states of 2026-01-01T00:00:00Z to /);
  // summarised up to the cut-off's bucket: the buckets before and after the damaged one are there
  expect(store.progress('prod', 300)).toBe(START + 15n * MIN);
  const starts = store.buckets('prod', 300, START, START + 15n * MIN).map((b) => b.start);
  expect(starts).toEqual([START, START + 10n * MIN]);
  rw.close();
});
