import { describe, expect, it } from 'vitest';
import { OPERATIONS, OPERATION_NAMES, type OperationName } from '../../src/api/schema/operations.ts';
import { camelToSnake } from '../../src/api/schema/fields.ts';
import { decodeAnswer, encodeAnswer, encodeAnswerTree, parseAnswer } from '../../src/api/wire/answers.ts';
import { defaultMessage } from '../../src/api/wire/defaults.ts';
import { ValidationError } from '../../src/api/wire/validation-error.ts';
import { withoutPresence } from '../helpers/presence.ts';
import { rng, sampleMessage } from '../helpers/sample-values.ts';

type Tree = unknown;
const sample = (op: OperationName, seed = 1): never => sampleMessage(OPERATIONS[op].response, rng(seed)) as never;

function mapKeys(tree: Tree, fn: (k: string) => string): Tree {
  if (Array.isArray(tree)) return tree.map((t) => mapKeys(t, fn));
  if (tree !== null && typeof tree === 'object') {
    return Object.fromEntries(Object.entries(tree).map(([k, v]) => [fn(k), mapKeys(v, fn)]));
  }
  return tree;
}

const DEFAULTS = new Set<unknown>(['', 0, '0', false, '0s', '1970-01-01T00:00:00.000000000Z']);
function stripDefaults(tree: Tree): Tree {
  if (Array.isArray(tree)) return tree.map(stripDefaults);
  if (tree !== null && typeof tree === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(tree)) {
      const s = stripDefaults(v);
      // set messages stay (a chosen empty one-of member is meaningful); empty arrays go
      const empty = Array.isArray(s) && s.length === 0;
      if (DEFAULTS.has(s) || (typeof s === 'string' && s.endsWith('_UNSPECIFIED')) || empty) continue;
      out[k] = s;
    }
    return out;
  }
  return tree;
}

function walk(tree: Tree, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(tree)) tree.forEach((t) => walk(t, visit));
  else if (tree !== null && typeof tree === 'object') {
    for (const [k, v] of Object.entries(tree)) {
      visit(k, v);
      walk(v, visit);
    }
  }
}

describe.each(OPERATION_NAMES)('%s answer', (op) => {
  it('round-trips a fully populated answer through the server encoding', () => {
    const value = sample(op);
    const text = encodeAnswer(op, value);
    expect(parseAnswer(op, text)).toEqual(value);
    expect(encodeAnswer(op, parseAnswer(op, text))).toBe(text);
  });

  it('writes server style: int64 as strings, 9-digit UTC timestamps, seconds durations, no bare big numbers', () => {
    const tree = encodeAnswerTree(op, sample(op, 7));
    walk(tree, (_k, v) => {
      expect(typeof v).not.toBe('bigint');
      if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v))
        expect(v).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
      if (typeof v === 'number') expect(Number.isSafeInteger(v)).toBe(true);
    });
  });

  it('reads the default-written and the compact style to the same values, and writes each back as it came', () => {
    const empty = defaultMessage(OPERATIONS[op].response);
    const full = encodeAnswerTree(op, empty as never);
    expect(decodeAnswer(op, full)).toEqual(empty);
    expect(withoutPresence(decodeAnswer(op, {}))).toEqual(empty);
    expect(encodeAnswerTree(op, decodeAnswer(op, {}))).toEqual({});
    const value = sample(op, 3);
    const compact = stripDefaults(encodeAnswerTree(op, value));
    const decoded = decodeAnswer(op, compact);
    expect(withoutPresence(decoded)).toEqual(decodeAnswer(op, encodeAnswerTree(op, value)));
    expect(encodeAnswerTree(op, decoded)).toEqual(compact);
    expect(parseAnswer(op, Buffer.from(JSON.stringify(compact)))).toEqual(decoded);
  });

  it('accepts snake_case keys as well as lowerCamelCase', () => {
    const value = sample(op, 5);
    const snake = mapKeys(encodeAnswerTree(op, value), (k) => (/^\d+$/.test(k) ? k : camelToSnake(k)));
    expect(decodeAnswer(op, snake)).toEqual(value);
  });

  it('keeps unknown fields at the top level and re-encodes them', () => {
    const tree = {
      ...encodeAnswerTree(op, sample(op)),
      futureField: { nested: [1, 'two', null], big: 18446744073709551615n },
    };
    const decoded = decodeAnswer(op, tree) as { $unknown?: Record<string, unknown> };
    expect(decoded.$unknown).toEqual({ futureField: { nested: [1, 'two', null], big: 18446744073709551615n } });
    const again = parseAnswer(op, encodeAnswer(op, decoded as never));
    expect(again).toEqual(decoded);
  });
});

describe('validation errors name the JSON path', () => {
  const connections = (): Record<string, unknown>[] =>
    Array.from({ length: 20 }, (_, i) => ({ uid: `u${i}`, totalRequestStatistics: { produceBytes: '1' } }));

  it('reports a wrong int64 deep in an array', () => {
    const list = connections();
    (list[17]!.totalRequestStatistics as Record<string, unknown>).produceBytes = true;
    expect(() => decodeAnswer('ListKafkaConnections', { connections: list })).toThrow(
      new ValidationError('connections[17].totalRequestStatistics.produceBytes', 'expected uint64, got true'),
    );
  });

  it('reports wrong types of strings, bools, enums, maps, lists and messages', () => {
    const cases: [unknown, string][] = [
      [{ connections: [{ clientId: 5 }] }, 'connections[0].clientId: expected string, got 5'],
      [{ connections: [{ tlsInfo: { enabled: 'yes' } }] }, 'connections[0].tlsInfo.enabled: expected boolean'],
      [{ connections: [{ state: true }] }, 'connections[0].state: expected KafkaConnectionState name'],
      [
        { connections: [{ apiVersions: { x: 1 } }] },
        'connections[0].apiVersions["x"]: map key must be a decimal integer',
      ],
      [{ connections: [{ apiVersions: { '3': '9x' } }] }, 'connections[0].apiVersions["3"]'],
      [{ connections: {} }, 'connections: expected array, got object'],
      [{ connections: [{ source: 'host' }] }, 'connections[0].source: expected object SourceAddress'],
      [{ connections: [{ idleDuration: '5 minutes' }] }, 'connections[0].idleDuration'],
      [{ connections: [{ openTime: '2025-13-01T00:00:00Z' }] }, 'connections[0].openTime'],
      [{ totalSize: 1.5 }, 'totalSize: expected uint64, got 1.5'],
      [{ totalSize: '-1' }, 'totalSize: value -1 out of range for uint64'],
      [{ connections: [{ shardId: -1 }] }, 'connections[0].shardId: value -1 out of range for uint32'],
      [
        { connections: [{ source: { port: 4294967296 } }] },
        'connections[0].source.port: value 4294967296 out of range for uint32',
      ],
      [
        { connections: [{ totalRequestStatistics: { requestCount: '18446744073709551616' } }] },
        'out of range for uint64',
      ],
    ];
    for (const [tree, message] of cases) {
      expect(() => decodeAnswer('ListKafkaConnections', tree), message).toThrow(message);
    }
  });

  it('rejects two members of one one-of group', () => {
    const tree = {
      shadowLink: {
        configurations: {
          clientOptions: {
            authenticationConfiguration: { plainConfiguration: {}, scramConfiguration: {} },
          },
        },
      },
    };
    expect(() => decodeAnswer('GetShadowLink', tree)).toThrow(/one-of "authentication"/);
  });
});

describe('lenient input the wire allows', () => {
  it('reads int64 from bare numbers beyond 2^53 without losing a digit', () => {
    const body = '{"connections":[],"totalSize":9223372036854775807}';
    expect(parseAnswer('ListKafkaConnections', body).totalSize).toBe(9223372036854775807n);
    const neg = '{"activeVersion":-9223372036854775808,"versionAfterFinalization":"18"}';
    expect(parseAnswer('GetUpgradeStatus', neg).activeVersion).toBe(-9223372036854775808n);
  });

  it('reads enums given as numbers and keeps unknown names as raw text', () => {
    const a = decodeAnswer('ListKafkaConnections', {
      connections: [{ state: 3 }, { state: 'KAFKA_CONNECTION_STATE_NEW_THING' }],
    });
    expect(a.connections[0]!.state).toBe('KAFKA_CONNECTION_STATE_CLOSED');
    expect(a.connections[1]!.state).toBe('KAFKA_CONNECTION_STATE_NEW_THING');
  });

  it('reads null as the default and leaves absent Iceberg offsets unset', () => {
    const a = decodeAnswer('GetIcebergStatus', {
      catalog: null,
      topics: [{ topic: 't', partitions: [{ partition: 0, lastCommittedOffset: null }] }],
    });
    expect(a.catalog.reachable).toBe(false);
    expect(a.topics[0]!.partitions[0]!.lastCommittedOffset).toBeUndefined();
    expect(encodeAnswer('GetIcebergStatus', a)).not.toContain('lastCommittedOffset');
  });

  it('maps the PATTERN_TYPE_PREFIXED alias to the name the server writes', () => {
    const a = decodeAnswer('GetShadowLink', {
      shadowLink: {
        configurations: { consumerOffsetSyncOptions: { groupFilters: [{ patternType: 'PATTERN_TYPE_PREFIXED' }] } },
      },
    });
    expect(a.shadowLink.configurations.consumerOffsetSyncOptions.groupFilters[0]!.patternType).toBe(
      'PATTERN_TYPE_PREFIX',
    );
  });
});
