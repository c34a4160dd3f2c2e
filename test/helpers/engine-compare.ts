/** Running the same command line on SQLite and on PostgreSQL, with outputs made comparable. */
import { runFlightrec, type CliRun } from '../fixtures/timeline/run-cli.ts';

/**
 * A PostgreSQL poll id is (UTC day number << 32) + sequence (DESIGN-17: ids give the day of their
 * partition); the sequence is SQLite's id for the same recording. Both outputs get the sequence.
 */
export function pollSequences(s: string): string {
  return s.replace(/\b\d{13,17}\b/g, (n) => {
    const id = BigInt(n);
    const day = id >> 32n;
    return day >= 19_000n && day <= 40_000n ? String(id & 0xffff_ffffn) : n;
  });
}

/** Runs a command on one engine, the clock at `now`; the database target in the output becomes `<db>`. */
export async function onEngine(db: string, args: readonly string[], now: number): Promise<CliRun> {
  const r = await runFlightrec(['--db', db, ...args], { now: () => now });
  const clean = (s: string) => pollSequences(s.split(db).join('<db>'));
  return { code: r.code, out: clean(r.out), err: clean(r.err) };
}
