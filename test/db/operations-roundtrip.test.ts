import { expect, it } from 'vitest';
import type { OperationName, RequestOf } from '../../src/api/schema/operations.ts';
import { encodeAnswer, parseAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { LIST_REQUEST, okRecord } from './fixtures.ts';
import { icebergAnswer, shadowLinkAnswer, shadowTopic, upgradeAnswer } from './small-answers.ts';

const T0 = 1_756_720_974_000_000_000n;
const MIN = 60_000_000_000n;
const encode = encodeAnswer as unknown as (op: OperationName, v: unknown) => string;
const parse = parseAnswer as unknown as (op: OperationName, body: string) => unknown;

interface Case {
  readonly op: OperationName;
  readonly request: unknown;
  readonly target: string;
  readonly answer: (v: number, odd: boolean) => unknown;
}

const CASES: Case[] = [
  { op: 'GetShadowLink', request: { name: 'dr-link' }, target: 'dr-link', answer: shadowLinkAnswer },
  {
    op: 'ListShadowTopics',
    request: { shadowLinkName: 'dr-link' },
    target: 'dr-link',
    answer: (v, odd) => ({ shadowTopics: [shadowTopic('orders', v, odd), shadowTopic('audit', v + 2)] }),
  },
  {
    op: 'GetShadowTopic',
    request: { shadowLinkName: 'dr-link', name: 'orders' },
    target: 'dr-link/orders',
    answer: (v, odd) => ({ shadowTopic: shadowTopic('orders', v, odd), ...(odd ? { $unknown: { x: null } } : {}) }),
  },
  { op: 'GetUpgradeStatus', request: {}, target: '', answer: upgradeAnswer },
  { op: 'GetIcebergStatus', request: { topicsFilter: ['clicks', 'orders'] }, target: '', answer: icebergAnswer },
];

forEachEngine('every operation: the reconstructed answer equals the answer served, field for field', (engine) => {
  it('round-trips all six operations, server style and with unknown fields and int64 edges', async () => {
    const path = await engine.target();
    const db = openDatabase(path);
    const writer = createHistoryWriter(db, { batchFrames: 2 });
    const written: { id: bigint; op: OperationName; text: string; decoded: unknown; request: unknown }[] = [];
    let at = T0;
    for (let v = 0; v < 6; v++) {
      for (const c of CASES) {
        // through the wire, as the client would decode it
        const text = encode(c.op, c.answer(v, v % 2 === 1));
        const decoded = parse(c.op, text);
        at += MIN;
        const id = writer.writePoll(
          okRecord(c.op, decoded as never, { at, request: c.request as never, target: c.target }),
        );
        written.push({ id, op: c.op, text, decoded, request: c.request });
      }
    }
    const conns = generateConnectionPolls({
      connections: 40,
      polls: 5,
      seed: 11,
      unknownFields: true,
      hugeCounters: true,
    });
    for (const p of conns) {
      const text = encodeAnswer('ListKafkaConnections', p.answer);
      const decoded = parseAnswer('ListKafkaConnections', text);
      at += MIN;
      const id = writer.writePoll(okRecord('ListKafkaConnections', decoded, { at, request: LIST_REQUEST }));
      written.push({ id, op: 'ListKafkaConnections', text, decoded, request: LIST_REQUEST });
    }
    const check = (reader: ReturnType<typeof createHistoryReader>): void => {
      for (const w of written) {
        const got = reader.reconstructAnswer(w.id);
        expect(got.operation).toBe(w.op);
        expect(got.answer).toEqual(w.decoded);
        expect(encode(w.op, got.answer)).toBe(encode(w.op, w.decoded));
        expect(encode(w.op, got.answer)).toBe(w.text);
        expect(got.request).toEqual(expect.objectContaining(w.request as object));
        expect(got.poll.id).toBe(w.id);
        expect(got.poll.outcome).toBe('ok');
      }
    };
    check(createHistoryReader(db));
    writer.close();
    const ro = openDatabase(path, { readonly: true });
    check(createHistoryReader(ro));
    ro.close();
  });

  it('keeps requests as sent (decoded, defaults filled)', async () => {
    const db = openDatabase(await engine.target());
    const writer = createHistoryWriter(db);
    const request: RequestOf<'ListKafkaConnections'> = {
      filter: 'client_id = "a\\"b"',
      orderBy: 'node_id desc',
      pageSize: 500,
    };
    const id = writer.writePoll(
      okRecord('ListKafkaConnections', { connections: [], totalSize: 0n }, { at: T0, request }),
    );
    expect(createHistoryReader(db).reconstructAnswer(id).request).toEqual(request);
    writer.close();
  });
});
