// The collector's store thread (src/cli/store-thread.ts) on a PostgreSQL server: records
// are written there in the order they were handed over, each push settles once its record is
// stored, the thread's counters and lines reach the collector's, a lost connection holds records
// and writes them once the server answers again, and a database the thread cannot open stops the
// recording (said once, the records counted as unwritten). Needs a server: the thread opens its
// own connection, which an in-process PGlite database cannot share.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RecordQueueHooks } from '../../src/collector/collector.ts';
import { emptyStats } from '../../src/collector/output.ts';
import { StoreThread } from '../../src/cli/store-thread.ts';
import { openDatabase, type FlightrecDb } from '../../src/db/index.ts';
import type { StoreLostError } from '../../src/db/poll-record.ts';
import { describeWithServer, freshPgTarget, pgAvailable, type PgTarget } from '../helpers/pg.ts';
import { okRecord } from '../db/fixtures.ts';
import { upgradeAnswer } from '../db/small-answers.ts';

const T0 = 1_767_225_600_000_000_000n;
const SECOND = 1_000_000_000n;

function hooksFor(): { hooks: RecordQueueHooks; lines: string[]; fatal: StoreLostError[] } {
  const lines: string[] = [];
  const fatal: StoreLostError[] = [];
  const stats = emptyStats();
  return { hooks: { counters: stats, line: (l) => lines.push(l), onFatal: (e) => fatal.push(e) }, lines, fatal };
}

const upgradeAt = (i: number, cluster = 'prod') =>
  okRecord('GetUpgradeStatus', upgradeAnswer(i), {
    at: T0 + BigInt(i) * 30n * SECOND,
    request: {},
    cluster,
    round: `r${i}`,
  });

describeWithServer('the store thread on a PostgreSQL server', () => {
  let target: PgTarget;
  let reader: FlightrecDb;

  beforeAll(async () => {
    target = await freshPgTarget({ migrated: true });
    reader = openDatabase(target.target);
  }, 120_000);

  afterAll(async () => {
    reader?.close();
    await target?.drop();
  });

  const stored = (): [string, string][] =>
    reader.sqlite
      .prepare('SELECT c.name, p.round FROM poll p JOIN cluster c ON c.id = p.cluster_id ORDER BY p.id')
      .raw()
      .all() as [string, string][];

  it('writes the records in the order they were handed over; each push settles once its record is stored', async () => {
    const { hooks, lines, fatal } = hooksFor();
    const thread = new StoreThread({ database: target.target, keepRawAnswers: false, maxHeldBytes: 1 << 20 }, hooks);
    try {
      const pushes = [0, 1, 2, 3, 4, 5].map((i) => thread.push(upgradeAt(i, i % 2 === 0 ? 'prod' : 'stage')));
      expect(thread.unwritten).toBe(6); // handed over, not answered yet
      await pushes[2];
      expect(stored().map(([, r]) => r)).toEqual(expect.arrayContaining(['r0', 'r1', 'r2']));
      await Promise.all(pushes);
      expect(stored()).toEqual([
        ['prod', 'r0'],
        ['stage', 'r1'],
        ['prod', 'r2'],
        ['stage', 'r3'],
        ['prod', 'r4'],
        ['stage', 'r5'],
      ]);
      expect(thread.unwritten).toBe(0);
      expect(hooks.counters.unwritten).toBe(0);
      expect([lines, fatal]).toEqual([[], []]);
    } finally {
      await thread.close();
    }
    // closed: nothing more is written, and saying so is the caller's (the records count as unwritten)
    await thread.push(upgradeAt(6));
    expect(thread.unwritten).toBe(1);
    expect(stored()).toHaveLength(6);
  });

  it('past its budget of bytes handed over and not written, it says it is behind until they are written', async () => {
    const { hooks } = hooksFor();
    const thread = new StoreThread({ database: target.target, keepRawAnswers: false, maxHeldBytes: 10 }, hooks);
    try {
      expect(thread.behind()).toBeUndefined();
      const pushed = thread.push(upgradeAt(40));
      const behind = thread.behind();
      expect(behind).toBeInstanceOf(Promise);
      let caughtUp = false;
      void behind!.then(() => {
        caughtUp = true;
      });
      await pushed;
      await Promise.resolve();
      expect(caughtUp).toBe(true);
      expect(thread.behind()).toBeUndefined();
    } finally {
      await thread.close();
    }
  });

  it('a lost connection: the record that met it is held and written, in order, once the server answers again', async () => {
    reader.sqlite.exec('DELETE FROM poll');
    const { hooks, lines, fatal } = hooksFor();
    const thread = new StoreThread(
      {
        database: `${target.target}?application_name=flightrec-store-thread-test`,
        keepRawAnswers: false,
        maxHeldBytes: 1 << 20,
      },
      hooks,
    );
    try {
      await thread.push(upgradeAt(10));
      const admin = new pg.Client({ connectionString: pgAvailable().url! });
      await admin.connect();
      try {
        const ended = await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'flightrec-store-thread-test'",
        );
        expect(ended.rowCount).toBeGreaterThan(0);
      } finally {
        await admin.end();
      }
      await thread.push(upgradeAt(11));
      await thread.push(upgradeAt(12));
      await thread.flush();
      expect(stored().map(([, r]) => r)).toEqual(['r10', 'r11', 'r12']);
      expect(thread.unwritten).toBe(0);
      expect(fatal).toEqual([]);
      // when the loss was met by a write, it was said and so was the recovery
      if (lines.length > 0) expect(lines.at(-1)).toBe('the database accepts writes again');
    } finally {
      await thread.close();
    }
  });

  it('a database the thread cannot open stops the recording: said once, every record counted as unwritten', async () => {
    const { hooks, lines, fatal } = hooksFor();
    const url = new URL(target.target);
    url.pathname = '/flightrec_t_no_such_database';
    url.password = 'never-shown';
    url.username = 'postgres';
    const thread = new StoreThread({ database: url.toString(), keepRawAnswers: false, maxHeldBytes: 1 << 20 }, hooks);
    try {
      await Promise.all([thread.push(upgradeAt(20)), thread.push(upgradeAt(21))]);
      expect(fatal).toHaveLength(1);
      expect(thread.fatal?.message).toMatch(/cannot open the database/);
      expect(thread.checkFile()).toBe(false);
      expect(lines.join('\n')).not.toContain('never-shown');
      expect(lines.filter((l) => l.includes('recording stopped'))).toHaveLength(1);
      expect(thread.unwritten).toBe(2);
    } finally {
      await thread.close();
    }
  });
});
