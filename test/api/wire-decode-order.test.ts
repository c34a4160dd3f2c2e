import { describe, expect, it } from 'vitest';
import { RequestStatistics } from '../../src/api/schema/connection.ts';
import { decodeMessage } from '../../src/api/wire/decode.ts';

const decode = (tree: unknown): Record<string, unknown> =>
  decodeMessage(RequestStatistics, tree) as Record<string, unknown>;
const SCHEMA_ORDER = ['fetchBytes', 'produceBatchCount', 'produceBytes', 'requestCount'];

describe('decoded records keep the keys in input order, defaults after, unknown fields and absent names last', () => {
  it('in schema order (built in one step) and in any other order (built field by field)', () => {
    const full = { fetchBytes: '1', produceBatchCount: '2', produceBytes: '3', requestCount: '4' };
    expect(Object.keys(decode(full))).toEqual(SCHEMA_ORDER);
    expect(decode(full)).toEqual({ fetchBytes: 1n, produceBatchCount: 2n, produceBytes: 3n, requestCount: 4n });
    const cases: [unknown, string[]][] = [
      [
        { produceBatchCount: '2', fetchBytes: '1', produceBytes: '3', requestCount: '4' },
        ['produceBatchCount', 'fetchBytes', 'produceBytes', 'requestCount'],
      ],
      [
        { fetchBytes: '1', produceBatchCount: null, produceBytes: '3', requestCount: '4' },
        ['fetchBytes', 'produceBytes', 'requestCount', 'produceBatchCount', '$absent'],
      ],
      [
        { fetchBytes: '1', produceBytes: '3' },
        ['fetchBytes', 'produceBytes', 'produceBatchCount', 'requestCount', '$absent'],
      ],
      [{ requestCount: '4' }, ['requestCount', 'fetchBytes', 'produceBatchCount', 'produceBytes', '$absent']],
      [
        { future: 1, fetchBytes: '1', produceBatchCount: '2', produceBytes: '3', requestCount: '4' },
        [...SCHEMA_ORDER, '$unknown'],
      ],
      [
        { future: 1, fetchBytes: '1' },
        ['fetchBytes', 'produceBatchCount', 'produceBytes', 'requestCount', '$unknown', '$absent'],
      ],
      [
        { fetchBytes: '1', fetch_bytes: '9', produceBatchCount: '2' },
        ['fetchBytes', 'produceBatchCount', 'produceBytes', 'requestCount', '$absent'],
      ],
      [{}, [...SCHEMA_ORDER, '$absent']],
    ];
    for (const [tree, keys] of cases) expect(Object.keys(decode(tree)), JSON.stringify(tree)).toEqual(keys);
    expect(decode({ fetchBytes: '1', fetch_bytes: '9' }).fetchBytes).toBe(9n); // the later name wins
    expect(decode({ fetchBytes: '1', produceBatchCount: null }).produceBatchCount).toBe(0n);
    // absent (or null) fields are named in schema order, whatever the input order
    expect(decode({ requestCount: '4', produceBatchCount: null }).$absent).toEqual([
      'fetchBytes',
      'produceBatchCount',
      'produceBytes',
    ]);
    expect(decode(full).$absent).toBeUndefined();
  });

  it('records nested in lists are built independently of each other', () => {
    const list = decodeMessage(
      {
        name: 'L',
        fields: {
          items: {
            type: { kind: 'list', element: { kind: 'message', message: RequestStatistics } },
            presence: 'always',
          },
        },
      },
      {
        items: [
          { fetchBytes: '1', produceBatchCount: '2', produceBytes: '3', requestCount: '4' },
          { requestCount: '7' },
          { fetchBytes: '5', produceBatchCount: '6', produceBytes: '7', requestCount: '8' },
        ],
      },
    ) as { items: Record<string, unknown>[] };
    expect(list.items.map((r) => Object.keys(r)[0])).toEqual(['fetchBytes', 'requestCount', 'fetchBytes']);
    expect(list.items[2]).toEqual({ fetchBytes: 5n, produceBatchCount: 6n, produceBytes: 7n, requestCount: 8n });
    expect(list.items[0]).not.toBe(list.items[2]);
  });
});
