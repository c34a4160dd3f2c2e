// A record's JsonNumbers survive the structured clone that takes it to the store thread; nothing
// else becomes one.
import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../src/api/codec/lossless-json.ts';
import { jsonNumberPaths, restoreJsonNumbers } from '../../src/collector/record-transfer.ts';

describe('JsonNumbers across a structured clone', () => {
  it('are found wherever they are and restored there; look-alike objects stay plain', () => {
    const proto: Record<string, unknown> = {};
    Object.defineProperty(proto, '__proto__', {
      value: new JsonNumber('-0'),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const record = {
      cluster: 'prod',
      outcome: {
        ok: true,
        answer: {
          members: [
            {
              nodeId: 1n,
              $unknown: {
                epoch: new JsonNumber('1.50'),
                list: [1, new JsonNumber('1e400'), { deep: [[new JsonNumber('1E5')]] }],
              },
            },
          ],
          $unknown: { decoy: { text: '2.0' }, odd: proto },
        },
        raw: new Uint8Array([1, 2, 3]),
      },
    };
    const paths = jsonNumberPaths(record);
    expect(paths).toHaveLength(4);
    expect(paths).toContainEqual(['outcome', 'answer', 'members', 0, '$unknown', 'epoch']);
    expect(paths).toContainEqual(['outcome', 'answer', '$unknown', 'odd', '__proto__']);
    const copy = structuredClone(record) as typeof record;
    expect(copy.outcome.answer.members[0]!.$unknown.epoch).not.toBeInstanceOf(JsonNumber);
    restoreJsonNumbers(copy, paths);
    const m = copy.outcome.answer.members[0]!.$unknown;
    expect(m.epoch).toEqual(new JsonNumber('1.50'));
    expect(m.epoch).toBeInstanceOf(JsonNumber);
    expect(m.list[1]).toBeInstanceOf(JsonNumber);
    expect(((m.list[2] as { deep: unknown[][] }).deep[0]![0] as JsonNumber).text).toBe('1E5');
    expect(Object.getOwnPropertyDescriptor(copy.outcome.answer.$unknown.odd, '__proto__')?.value).toEqual(
      new JsonNumber('-0'),
    );
    expect(copy.outcome.answer.$unknown.decoy).not.toBeInstanceOf(JsonNumber);
    expect(copy.outcome.answer.members[0]!.nodeId).toBe(1n);
    expect(copy.outcome.raw).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('a record without any: no paths; a deep nesting is walked without recursion', () => {
    expect(jsonNumberPaths({ a: [1, 'x', null, { b: 2n }] })).toEqual([]);
    let deep: unknown = new JsonNumber('0.10');
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonNumberPaths(deep)[0]).toHaveLength(100_000);
  });
});
