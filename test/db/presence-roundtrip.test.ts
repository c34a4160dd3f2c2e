/**
 * Presence, widths and strings through the store (property): answers written as any protobuf
 * JSON encoder may write them (any subset of fields present, each width at its extremes, odd
 * strings and times) come back from the store field for field: absent stays absent, present
 * stays present (a default value included), nothing is invented.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { stringifyJson } from '../../src/api/codec/lossless-json.ts';
import { OPERATION_NAMES, type OperationName, type RequestOf } from '../../src/api/schema/operations.ts';
import { encodeAnswerTree, parseAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { answerArb } from '../helpers/wire-gen.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';

const REQUESTS: { [N in OperationName]: RequestOf<N> } = {
  ListKafkaConnections: LIST_REQUEST,
  GetShadowLink: { name: 'dr' },
  ListShadowTopics: { shadowLinkName: 'dr' },
  GetShadowTopic: { shadowLinkName: 'dr', name: 'orders' },
  GetUpgradeStatus: {},
  GetIcebergStatus: { topicsFilter: [] },
};
const T0 = 1_756_720_974_000_000_000n;
const parse = parseAnswer as unknown as (op: OperationName, body: Uint8Array) => never;
const encodeTree = encodeAnswerTree as unknown as (op: OperationName, v: unknown) => unknown;

forEachEngine('the store gives back what was present, and only that', (engine) => {
  it.each(OPERATION_NAMES)('%s', async (op) => {
    const path = await engine.target();
    const db = openDatabase(path);
    // small batches, so that sealed chunks and open head frames are both read back
    const writer = createHistoryWriter(db, { batchFrames: 3 });
    const reader = createHistoryReader(db);
    let at = T0;
    const written: { id: bigint; expected: unknown; body: string }[] = [];
    fc.assert(
      fc.property(answerArb(op), (tree) => {
        const body = stringifyJson(tree);
        const decoded = parse(op, Buffer.from(body));
        at += 60_000_000_000n;
        const id = writer.writePoll(okRecord(op, decoded, { at, request: REQUESTS[op] as never, target: 'dr' }));
        const expected = encodeTree(op, decoded);
        written.push({ id, expected, body });
        expect(encodeTree(op, reader.reconstructAnswer(id).answer), body).toEqual(expected);
      }),
      { numRuns: op === 'GetShadowLink' ? 60 : 120, seed: 1313 },
    );
    writer.close();
    // once every batch is sealed, and through a fresh read-only reader
    const ro = openDatabase(path, { readonly: true });
    const again = createHistoryReader(ro);
    for (const w of written) expect(encodeTree(op, again.reconstructAnswer(w.id).answer), w.body).toEqual(w.expected);
    ro.close();
  });
});
