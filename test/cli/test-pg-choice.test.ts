/**
 * Which PostgreSQL `npm test` uses without being told (test/helpers/pg-probe.ts, run by the
 * global setup): the variable when set, else a local server that answers, else PGlite, said in
 * one line without a password.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { choosePg, probePg } from '../helpers/pg-probe.ts';
import { pgAvailable } from '../helpers/pg.ts';

describe('the PostgreSQL of a test run', () => {
  it('takes a local server that answers when FLIGHTREC_TEST_PG is not set', async () => {
    const tried: string[] = [];
    const choice = await choosePg({ PGUSER: 'ci' }, (url) => {
      tried.push(url);
      return Promise.resolve(url.startsWith('postgres://postgres@'));
    });
    expect(tried[0]).toBe('postgres://ci@127.0.0.1:5432/postgres');
    expect(choice).toEqual({
      url: 'postgres://postgres@127.0.0.1:5432/postgres',
      line: 'PostgreSQL tests: postgres://postgres@127.0.0.1:5432/postgres (found on 127.0.0.1:5432)',
    });
  });

  it('says PGlite when nothing answers, and how to name a server', async () => {
    const choice = await choosePg({}, () => Promise.resolve(false));
    expect(choice.url).toBeUndefined();
    expect(choice.line).toMatch(
      /^PostgreSQL tests: PGlite, in-process \(no server on 127\.0\.0\.1:5432 .*FLIGHTREC_TEST_PG=postgres:/,
    );
  });

  it('keeps the variable as an override, pglite included, and never prints its password', async () => {
    const never = (): Promise<boolean> => Promise.reject(new Error('no probe when the variable is set'));
    expect(await choosePg({ FLIGHTREC_TEST_PG: 'pglite' }, never)).toEqual({
      line: 'PostgreSQL tests: PGlite, in-process (FLIGHTREC_TEST_PG=pglite)',
    });
    const named = await choosePg({ FLIGHTREC_TEST_PG: 'postgres://u:s3cret@db.test:6543/x' }, never);
    expect(named.url).toBe('postgres://u:s3cret@db.test:6543/x');
    expect(named.line).toBe('PostgreSQL tests: postgres://u@db.test:6543/x (FLIGHTREC_TEST_PG)');
  });

  it('probes quickly: a closed port is no server', async () => {
    const port = await new Promise<number>((done) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => done(p));
      });
    });
    const t0 = Date.now();
    expect(await probePg(`postgres://postgres@127.0.0.1:${port}/postgres`)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it.runIf(pgAvailable().url !== undefined)('finds the server this run uses usable', async () => {
    expect(await probePg(pgAvailable().url!)).toBe(true);
  });
});
