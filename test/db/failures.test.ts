import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Secret } from '../../src/api/client/secret.ts';
import { encodeAnswer } from '../../src/api/wire/answers.ts';
import {
  createHistoryReader,
  createHistoryWriter,
  openDatabase,
  openHistoryMaintenance,
  PollWriteError,
} from '../../src/db/index.ts';
import type { PollFailure, PollRecord } from '../../src/db/poll-record.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { failedRecord, LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';
import { shadowLinkAnswer } from './small-answers.ts';

const T0 = 1_756_720_974_000_000_000n;
const MIN = 60_000_000_000n;
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

const FAILURES: Omit<PollFailure, 'ok' | 'bytes'>[] = [
  {
    code: 'resource_exhausted',
    kind: 'connect',
    httpStatus: 429,
    message: 'another external call is in progress',
    details: [
      {
        type: 'type.googleapis.com/google.rpc.RetryInfo',
        value: 'CgIIAw==',
        debug: { retryDelay: '3s', n: 2n ** 63n - 1n },
      },
    ],
    raw: bytes('{"code":"resource_exhausted","message":"another external call is in progress","details":[]}'),
  },
  {
    code: 'failed_precondition',
    kind: 'connect',
    httpStatus: 400,
    message: 'an enterprise licence is required',
    details: [],
    raw: bytes('{"code":"failed_precondition","message":"an enterprise licence is required"}'),
  },
  { code: 'unavailable', kind: 'transport', message: 'connect ECONNREFUSED 127.0.0.1:9644' },
  { code: 'deadline_exceeded', kind: 'transport', message: 'the call timed out after 10000 ms' },
  {
    code: 'unavailable',
    kind: 'protocol',
    httpStatus: 502,
    message: 'HTTP 502 with a non-Connect body',
    raw: bytes('<html><body><h1>502 Bad Gateway</h1></body></html>\u0000\u00ff'),
  },
  {
    code: 'internal',
    kind: 'invalid_answer',
    httpStatus: 200,
    message: 'connections[3].totalRequestStatistics.fetchBytes: expected int64, got true',
    path: 'connections[3].totalRequestStatistics.fetchBytes',
    raw: bytes('{"connections":[{},{},{},{"totalRequestStatistics":{"fetchBytes":true}}],"totalSize":"4"}'),
  },
  {
    code: 'internal',
    kind: 'protocol',
    httpStatus: 200,
    message: 'truncated JSON',
    raw: bytes('{"connections":[{"uid":"ab'),
  },
  { code: 'unknown', kind: 'protocol', httpStatus: 500, message: 'empty body', raw: new Uint8Array(0) },
];

describe('failed polls', () => {
  it("are poll rows with code, kind, status, message, details, path and the raw body (gzip'd)", () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db);
    const ids = FAILURES.map((f, i) =>
      writer.writePoll(
        failedRecord(i % 2 === 0 ? 'ListKafkaConnections' : 'GetShadowLink', f, {
          at: T0 + BigInt(i) * MIN,
          request: i % 2 === 0 ? LIST_REQUEST : { name: 'dr-link' },
          target: i % 2 === 0 ? '' : 'dr-link',
          attempt: 1 + (i % 3),
        }),
      ),
    );
    const reader = createHistoryReader(db);
    FAILURES.forEach((f, i) => {
      const got = reader.reconstructAnswer(ids[i]!);
      expect(got.answer).toBeUndefined();
      const expected: PollFailure = { ok: false, ...f, bytes: f.raw?.length ?? 0 };
      expect(got.failure).toEqual(expected);
      if (f.raw !== undefined) expect(Buffer.from(got.raw!).equals(Buffer.from(f.raw))).toBe(true);
      else expect(got.raw).toBeUndefined();
      expect(got.poll.outcome).toBe(f.code);
      expect(got.poll.httpStatus).toBe(f.httpStatus ?? 0);
      expect(got.poll.message).toBe(f.message);
    });
    expect(reader.polls({}).map((p) => p.outcome)).toEqual(FAILURES.map((f) => f.code));
    const stored = db.sqlite.prepare('SELECT count(*) FROM poll_raw').pluck().get();
    expect(stored).toBe(FAILURES.filter((f) => f.raw !== undefined).length);
    expect(openHistoryMaintenance(db).stats()).toMatchObject({ polls: FAILURES.length, failedPolls: FAILURES.length });
    writer.close();
  });

  it('keeps raw successful answers only when asked', () => {
    for (const keepRawAnswers of [false, true]) {
      const db = openDatabase(tempDbPath(), { keepRawAnswers });
      const writer = createHistoryWriter(db);
      const answer = shadowLinkAnswer(2);
      const id = writer.writePoll(
        okRecord('GetShadowLink', answer, { at: T0, request: { name: 'dr-link' }, target: 'dr-link', raw: true }),
      );
      const got = createHistoryReader(db).reconstructAnswer(id);
      if (keepRawAnswers) expect(new TextDecoder().decode(got.raw)).toBe(encodeAnswer('GetShadowLink', answer));
      else expect(got.raw).toBeUndefined();
      writer.close();
    }
  });

  it('refuses a record it cannot store, leaving nothing of it', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db);
    const wrongAnswer: unknown = { activeVersion: 1n }; // a bigint where the schema has a message
    const bad = { ...okRecord('GetUpgradeStatus', wrongAnswer as never, { at: T0, request: {} }) };
    expect(() => writer.writePoll(bad)).toThrow(PollWriteError);
    expect(() => writer.writePoll({ ...bad, operation: 'DeleteEverything' } as unknown as PollRecord)).toThrow(
      /unknown operation/,
    );
    expect(db.sqlite.prepare('SELECT count(*) FROM poll').pluck().get()).toBe(0);
    writer.close();
  });
});

describe('secrets', () => {
  it('never reach the database, even when a caller slips one into a failure', () => {
    const path = tempDbPath();
    const password = 'hunter2-Sup3rS3cret-token';
    const db = openDatabase(path);
    const writer = createHistoryWriter(db);
    const secret = new Secret(password);
    writer.writePoll(
      failedRecord(
        'ListKafkaConnections',
        {
          code: 'unauthenticated',
          kind: 'connect',
          httpStatus: 401,
          message: `bad credentials ${String(secret)}`,
          details: [{ auth: secret }],
        },
        { at: T0, request: LIST_REQUEST },
      ),
    );
    const link = shadowLinkAnswer(3);
    writer.writePoll(
      okRecord('GetShadowLink', link, { at: T0 + MIN, request: { name: 'dr-link' }, target: 'dr-link' }),
    );
    for (const p of generateConnectionPolls({ connections: 30, polls: 3 })) {
      writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST }));
    }
    writer.close();
    const dir = dirname(path);
    for (const f of readdirSync(dir)) {
      const content = readFileSync(join(dir, f));
      expect(content.includes(Buffer.from(password)), `${f} holds the secret`).toBe(false);
    }
  });
});
