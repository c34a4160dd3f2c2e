// Which write failures are the store's (the record is held and written later) and which are the
// record's (it is stored as a failed poll saying why): PostgreSQL's side.
import { describe, expect, it } from 'vitest';
import { PollWriteError } from '../../src/db/errors.ts';
import { PgError } from '../../src/db/engines/pg/sync-database.ts';
import { refusalCode } from '../../src/db/write/write-failure.ts';

const wrapped = (err: Error) => new PollWriteError('prod', 'GetUpgradeStatus', err.message, { cause: err });

describe('refusalCode on PostgreSQL errors', () => {
  it('a lost connection is a refusal, with or without an SQLSTATE, however deep the cause', () => {
    expect(
      refusalCode(new PgError('Client has encountered a connection error and is not queryable', undefined, true)),
    ).toBe('connection');
    expect(
      refusalCode(wrapped(new PgError('terminating connection due to administrator command', '57P01', true))),
    ).toBe('57P01');
  });

  it('the server refusing for now (disk full, read-only, shutdown, deadlock, lock, privileges) is a refusal', () => {
    for (const code of [
      '53100',
      '53200',
      '53300',
      '25006',
      '57P03',
      '57014',
      '58030',
      '40001',
      '40P01',
      '55P03',
      '42501',
      '3D000',
      '28P01',
      'XX001',
    ]) {
      expect(refusalCode(wrapped(new PgError('refused', code, false))), code).toBe(code);
    }
  });

  it('what the record caused (a value out of range, a bad byte sequence, a row too large, a bug) is not', () => {
    for (const code of ['22003', '22021', '54000', '23505', '42601', 'XX000']) {
      expect(refusalCode(wrapped(new PgError('the record', code, false))), code).toBeUndefined();
    }
    expect(refusalCode(new Error('anything else'))).toBeUndefined();
  });
});
