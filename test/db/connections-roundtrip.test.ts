import { expect, it } from 'vitest';
import { encodeAnswer, parseAnswer } from '../../src/api/wire/answers.ts';
import type { ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { generateConnectionPolls, type ConnectionWorldOptions } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

function roundTrip(
  path: string,
  world: ConnectionWorldOptions & { polls: number },
  batchFrames: number,
  sealOnClose = true,
): void {
  const db = openDatabase(path);
  const writer = createHistoryWriter(db, { batchFrames, sealOnClose });
  const polls = generateConnectionPolls(world);
  const ids: bigint[] = [];
  // through the wire: encode as the server would, parse as the client would
  const answers = polls.map((p) => parseAnswer('ListKafkaConnections', encodeAnswer('ListKafkaConnections', p.answer)));
  answers.forEach((answer, i) =>
    ids.push(writer.writePoll(okRecord('ListKafkaConnections', answer, { at: polls[i]!.at, request: LIST_REQUEST }))),
  );
  const check = (reader: ReturnType<typeof createHistoryReader>): void => {
    ids.forEach((id, i) => {
      const got = reader.reconstructAnswer(id);
      expect(got.operation).toBe('ListKafkaConnections');
      expect(got.failure).toBeUndefined();
      const answer = got.answer as ListKafkaConnectionsResponse;
      expect(encodeAnswer('ListKafkaConnections', answer)).toBe(encodeAnswer('ListKafkaConnections', answers[i]!));
      expect(answer).toEqual(answers[i]);
    });
  };
  check(createHistoryReader(db)); // while batches are open (head frames) and sealed
  writer.close();
  const ro = openDatabase(path, { readonly: true });
  check(createHistoryReader(ro)); // after sealing, read-only
  ro.close();
}

forEachEngine('connections: every poll reconstructs exactly', (engine) => {
  it('with churn, attribute changes and closed connections', async () => {
    roundTrip(await engine.target(), { connections: 300, churn: 0.05, polls: 23, seed: 7 }, 4);
  });

  it('with unknown fields and int64 at the edges (9223372036854775807)', async () => {
    roundTrip(
      await engine.target(),
      { connections: 120, churn: 0.1, polls: 12, seed: 3, unknownFields: true, hugeCounters: true },
      3,
    );
  });

  it('with a shuffled answer order and a batch left open', async () => {
    roundTrip(await engine.target(), { connections: 150, churn: 0.03, polls: 11, seed: 9, shuffle: true }, 8, false);
  });
});
