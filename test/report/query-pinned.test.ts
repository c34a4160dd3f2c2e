/**
 * A range query whose filter pins one connection (`uid = "…"`) reads that connection's history
 * instead of every sample of the range: the same samples, in the same order, as the scan, on a
 * real store with churn, a failed poll, an empty answer, a fan-out round (the uid in several
 * calls of one round), sealed batches and the open one, and windows starting and ending inside.
 */
import { describe, expect, it } from 'vitest';
import type { KafkaConnection, ListKafkaConnectionsResponse } from '../../src/api/schema/connection.ts';
import { compileFilter } from '../../src/filter/index.ts';
import { createHistoryReader, createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import type { PollRecord } from '../../src/db/poll-record.ts';
import { runQuery, type ReportReader } from '../../src/report/index.ts';
import { pinnedUid } from '../../src/report/pinned-key.ts';
import { ConnectionWorld } from '../helpers/connection-answers.ts';
import { failedRecord, LIST_REQUEST, okRecord, tempDbPath } from '../db/fixtures.ts';

const SEC = 1_000_000_000n;

function records(): { records: PollRecord[]; times: bigint[]; uids: string[] } {
  const world = new ConnectionWorld({ connections: 30, churn: 0.1, seed: 9, nodes: 3, shuffle: true });
  const out: PollRecord[] = [];
  const times: bigint[] = [];
  const uids = new Set<string>();
  for (let r = 0; r < 30; r++) {
    const { at, answer } = world.next();
    times.push(at);
    for (const c of answer.connections) uids.add(c.uid);
    const round = `round-${r}`;
    if (r === 6) {
      out.push(
        failedRecord(
          'ListKafkaConnections',
          { code: 'unavailable', kind: 'connect', httpStatus: 503, message: 'down' },
          { at, request: LIST_REQUEST, round },
        ),
      );
    } else if (r === 9) {
      out.push(
        okRecord('ListKafkaConnections', { connections: [], totalSize: 0n }, { at, request: LIST_REQUEST, round }),
      );
    } else if (r === 13) {
      // a truncated first call, then one call per half of the nodes: a uid in two calls of the round
      const slices: [string, (c: KafkaConnection) => boolean, number][] = [
        ['', () => true, 10],
        ['node_id < 2', (c) => c.nodeId < 2, 1000],
        ['node_id >= 2', (c) => c.nodeId >= 2, 1000],
      ];
      slices.forEach(([slice, pick, limit], k) => {
        const matching = answer.connections.filter(pick);
        const part: ListKafkaConnectionsResponse = {
          connections: matching.slice(0, limit),
          totalSize: BigInt(matching.length),
        };
        const coverage = {
          rowsReturned: part.connections.length,
          totalSize: part.totalSize,
          fanoutCalls: k + 1,
          slice,
        };
        out.push(
          okRecord('ListKafkaConnections', part, {
            at: at + BigInt(k) * SEC,
            request: { ...LIST_REQUEST, filter: slice },
            round,
            coverage,
          }),
        );
      });
    } else {
      out.push(okRecord('ListKafkaConnections', answer, { at, request: LIST_REQUEST, round }));
    }
  }
  return { records: out, times, uids: [...uids] };
}

/** The same reader without entityHistory: range queries scan every sample. */
function scanning(r: ReportReader): ReportReader {
  return {
    stateAt: (...a) => r.stateAt(...a),
    samples: (...a) => r.samples(...a),
    polls: (...a) => r.polls(...a),
    sqlColumns: (resource) => r.sqlColumns?.(resource),
  };
}

describe('a range query pinned to one connection', () => {
  it('gives the same samples as the scan of the whole range', () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const writer = createHistoryWriter(db, { sealOnClose: false });
    const { records: recs, times, uids } = records();
    for (const rec of recs) writer.writePoll(rec);
    writer.close();
    const ro = openDatabase(path, { readonly: true });
    const reader = createHistoryReader(ro) as unknown as ReportReader;
    const scan = scanning(reader);
    // the fast path must not scan
    const pinned: ReportReader = {
      ...scanning(reader),
      entityHistory: reader.entityHistory!.bind(reader),
      samples: () => {
        throw new Error('scanned the range');
      },
    };
    const windows: [bigint, bigint][] = [
      [times[0]!, times.at(-1)! + 10n * SEC],
      [times[4]!, times[14]!],
      [times[13]! + SEC, times[13]! + 2n * SEC],
      [times[20]! + 1n, times[27]! - 1n],
    ];
    let nonEmpty = 0;
    for (const uid of uids.filter((_, i) => i % 5 === 0)) {
      for (const [since, until] of windows) {
        for (const filter of [
          `uid = "${uid}"`,
          `node_id >= 0 AND uid = "${uid}" AND state != KAFKA_CONNECTION_STATE_UNSPECIFIED`,
        ]) {
          for (const orderBy of ['', 'node_id desc']) {
            const q = { resource: 'connections' as const, since, until, filter, orderBy };
            const fast = runQuery(pinned, q);
            expect(fast).toEqual(runQuery(scan, q));
            if (fast.total > 0) nonEmpty++;
          }
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(30);
    ro.close();
  });

  it('is taken only for an exact uid that every match must have', () => {
    const uidOf = (f: string): string | undefined =>
      pinnedUid(compileFilter(f, { resource: 'connections', dialect: 'extended' }).ast);
    expect(uidOf('uid = "a"')).toBe('a');
    expect(uidOf('node_id = 1 AND uid = "a"')).toBe('a');
    expect(uidOf('node_id = 1 uid = "a"')).toBe('a');
    expect(uidOf('uid = "a" OR node_id = 1')).toBeUndefined();
    expect(uidOf('NOT uid = "a"')).toBeUndefined();
    expect(uidOf('uid != "a"')).toBeUndefined();
    expect(uidOf('uid = "a*"')).toBeUndefined();
    // `:` on a scalar is `=`
    expect(uidOf('uid:"a"')).toBe('a');
    expect(uidOf('client_id = "a"')).toBeUndefined();
    expect(uidOf('')).toBeUndefined();
  });
});
