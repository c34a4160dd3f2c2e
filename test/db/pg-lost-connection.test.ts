/**
 * Which errors of the driver mean the connection is gone: the bridge worker drops such a
 * connection at once, whether or not the client's 'error' event came first.
 */
import { describe, expect, it } from 'vitest';
import { losesConnection } from '../../src/db/engines/pg/engine-connection.ts';

const withCode = (code: unknown) => Object.assign(new Error('x'), { code });

describe('losesConnection', () => {
  it('is true for a terminated backend, a shutdown and connection exceptions', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08003', '08P01']) {
      expect(losesConnection(withCode(code)), code).toBe(true);
    }
  });

  it('is true for errors without an SQLSTATE: socket resets and a terminated connection', () => {
    expect(losesConnection(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(losesConnection(withCode('ECONNRESET'))).toBe(true);
    expect(losesConnection('not an error')).toBe(true);
    expect(losesConnection(null)).toBe(true);
  });

  it('is false for errors of the statement: the connection goes on', () => {
    for (const code of ['23505', '42601', '40001', '57014', '25006', '22P02']) {
      expect(losesConnection(withCode(code)), code).toBe(false);
    }
  });
});
