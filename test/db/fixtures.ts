/** Shared helpers of the store tests: temporary databases and poll records. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OperationName, RequestOf, ResponseOf } from '../../src/api/schema/operations.ts';
import { encodeAnswer } from '../../src/api/wire/answers.ts';
import type { PollCoverage, PollFailure, PollRecord } from '../../src/db/poll-record.ts';
import type { FlightrecDb } from '../../src/db/index.ts';
import { onFileEnd, onTestEnd } from '../helpers/cleanup.ts';

const dirs: string[] = [];
const suiteDirs: string[] = [];
onTestEnd(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
onFileEnd(() => {
  for (const d of suiteDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh directory removed after the test (or after the file's tests); the path of a database in it. */
export function tempDbPath(name = 'history.db', lifetime: 'test' | 'file' = 'test'): string {
  const dir = mkdtempSync(join(tmpdir(), 'flightrec-db-'));
  (lifetime === 'test' ? dirs : suiteDirs).push(dir);
  return join(dir, name);
}

const SECOND = 1_000_000_000n;

/** A successful poll record. */
export function okRecord<N extends OperationName>(
  op: N,
  answer: ResponseOf<N>,
  o: {
    at: bigint;
    request: RequestOf<N>;
    cluster?: string;
    target?: string;
    round?: string;
    coverage?: PollCoverage;
    raw?: boolean;
  },
): PollRecord {
  const text = (encodeAnswer as unknown as (op: OperationName, v: unknown) => string)(op, answer);
  const raw = o.raw ? new TextEncoder().encode(text) : undefined;
  // widened to any operation, as a PollRecord holds it (checking PollRecord<N> is too deep for tsc)
  const record: PollRecord = {
    cluster: o.cluster ?? 'prod',
    operation: op,
    target: o.target ?? '',
    request: o.request as RequestOf<OperationName>,
    round: o.round ?? `r${o.at}`,
    attempt: 1,
    scheduledAt: o.at,
    startedAt: o.at,
    endedAt: o.at + SECOND / 10n,
    outcome: {
      ok: true,
      answer: answer as ResponseOf<OperationName>,
      bytes: text.length,
      ...(raw === undefined ? {} : { raw }),
    },
    ...(o.coverage === undefined ? {} : { coverage: o.coverage }),
  };
  return record;
}

/** A failed poll record. */
export function failedRecord(
  op: OperationName,
  failure: Omit<PollFailure, 'ok' | 'bytes'>,
  o: { at: bigint; request: unknown; cluster?: string; target?: string; round?: string; attempt?: number },
): PollRecord {
  return {
    cluster: o.cluster ?? 'prod',
    operation: op,
    target: o.target ?? '',
    // any request: tests record failures of calls whose request does not matter
    request: o.request as RequestOf<OperationName>,
    round: o.round ?? `r${o.at}`,
    attempt: o.attempt ?? 1,
    scheduledAt: o.at,
    startedAt: o.at,
    endedAt: o.at + SECOND,
    outcome: { ok: false, ...failure, bytes: failure.raw?.length ?? 0 },
  };
}

/** The ListKafkaConnections request the collector sends by default. */
export const LIST_REQUEST: RequestOf<'ListKafkaConnections'> = { filter: '', orderBy: '', pageSize: 0 };

/**
 * The connection versions a store holds: conn_version's rows, and on PostgreSQL the first
 * versions kept in entity rows (drizzle/pg/0010).
 */
export function storedVersions(db: FlightrecDb): number {
  const rows = Number(db.sqlite.prepare('SELECT count(*) FROM conn_version').pluck().get());
  // packed records: a connection's first version is in its entity row
  if (db.engine.connectionLayout !== 'packed-records') return rows;
  const folded = 'SELECT count(*) FROM conn_entity WHERE first_version IS NOT NULL';
  return rows + Number(db.sqlite.prepare(folded).pluck().get());
}
