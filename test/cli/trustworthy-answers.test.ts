/**
 * Issue 34 through the command line, on a real SQLite file and on PostgreSQL: trends raise no
 * false alarm on a healthy recording and say their scale; a filter comparing a field with a name
 * it never holds says so (with the name meant); real durations under `collect --simulate` at
 * real speed; "now" on an old recording is the recording's end, and says how old it is.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERY_30S, runFlightrec, tempDir, type CliRun } from '../fixtures/timeline/run-cli.ts';
import { describeWithServer, freshPgTarget, type PgTarget } from '../helpers/pg.ts';

const tmp = tempDir();
afterAll(() => tmp.remove());

/** A trends JSON document, as far as these tests read it. */
interface TrendsDoc {
  rows: { key: string; trend?: string; trendSeries?: (string | null)[] }[];
}

/** The rows and slices trends classifies stalled or stopped, as `key@slice:class`. */
function alarms(run: CliRun): string[] {
  expect(run.code, run.err).toBe(0);
  const doc = JSON.parse(run.out) as TrendsDoc;
  const out: string[] = [];
  for (const row of doc.rows) {
    if (row.trend === 'stalled' || row.trend === 'stopped') out.push(`${row.key}:${row.trend}`);
    (row.trendSeries ?? []).forEach((c, i) => {
      if (c === 'stalled' || c === 'stopped') out.push(`${row.key}@${i}:${c}`);
    });
  }
  return out;
}

/**
 * The checks of one engine: `db()` gives the database holding a quiet and (`full`) an incident
 * cluster. PostgreSQL runs the reading half only (each command opens a worker and a connection:
 * seconds each on a busy machine).
 */
function readerChecks(db: () => string, full: boolean): void {
  const quiet = (args: string[]) => runFlightrec(['--db', db(), '--cluster', 'quiet', ...args]);
  const incident = (args: string[]) => runFlightrec(['--db', db(), '--cluster', 'incident', ...args]);

  it('trends: no stalled or stopped row or slice on a healthy recording (lag of a few records, sawtooth commits)', async () => {
    for (const by of full ? ['partition', 'topic', 'link'] : ['topic'])
      expect(alarms(await quiet(['-o', 'json', 'trends', 'shadow-lag', '--by', by])), by).toEqual([]);
    for (const by of full ? ['partition', 'topic'] : ['partition'])
      expect(alarms(await quiet(['-o', 'json', 'trends', 'iceberg-lag', '--by', by])), by).toEqual([]);
  });

  it('query: an enum compared with a name it does not have warns, naming the value meant', async () => {
    const cases = [
      ['extended', 'state = open'],
      ['server', 'state = KAFKA_CONNECTION_STATE_OPNE'],
      ['extended', 'state = OPEN_'],
      ['server', 'state = kafka_connection_state_open'],
    ] as const;
    for (const [dialect, expr] of full ? cases : cases.slice(0, 2)) {
      const r = await quiet(['query', 'connections', '--since', '-1000d', '--dialect', dialect, '--filter', expr]);
      expect(r.code, `${dialect} ${expr}: ${r.err}`).toBe(0);
      expect(r.err, `${dialect} ${expr}`).toMatch(
        /warning: .* is not a value of KafkaConnectionState \(state\): it matches nothing; did you mean KAFKA_CONNECTION_STATE_OPEN\?/,
      );
      expect(r.err).toContain(`  ${expr}\n`);
    }
    const ok = await quiet(['query', 'connections', '--since', '-1000d', '--filter', 'state = OPEN', '--limit', '1']);
    expect(ok.err).not.toMatch(/warning: .*state/);
  });

  it('query polls: an operation the recorder never polls is a warning, with the name meant', async () => {
    const r = await quiet(['query', 'polls', '--filter', 'operation = 3']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(
      /warning: "3" is never a value of operation \(one of ListKafkaConnections, .*\): it matches nothing/,
    );
    const near = await quiet(['query', 'polls', '--filter', 'operation = listshadowtopics', '--limit', '1']);
    expect(near.err).toMatch(/did you mean ListShadowTopics\?/);
    const fine = await quiet(['query', 'polls', '--filter', 'operation = ListShadowTopics', '--limit', '1']);
    expect(fine.err).not.toMatch(/warning/);
  });

  it('summary of an old recording: "now" is the end of the recording, and says how long ago', async () => {
    const later = Date.parse('2026-12-05T00:00:00Z');
    const r = await runFlightrec(['--db', db(), '--cluster', 'quiet', 'summary'], { now: () => later });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^Abnormal at the end of the recording \(2026-01-01T00:15:00Z, 33\dd\d+h ago\): nothing\.$/m);
    expect(r.out).toMatch(/^At the end of the recording: open connections \d+/m);
    expect(r.out).not.toMatch(/\bnow\b/i);
    const j = await runFlightrec(['--db', db(), '--cluster', 'quiet', '-o', 'json', 'summary'], { now: () => later });
    const doc = JSON.parse(j.out) as { recordingEnd?: { at: string; agoSeconds: number } };
    expect(doc.recordingEnd?.at).toMatch(/^2026-01-01T00:15:00/);
    expect(doc.recordingEnd?.agoSeconds).toBeGreaterThan(337 * 86_400);
  });

  it("a stopped collection is one gap listing its targets, in the timeline and in fleet's WARN", async () => {
    const at = '2026-01-01T00:45:00Z';
    const t = await quiet(['-o', 'json', 'timeline', '--until', at, '--min-severity', 'warn']);
    expect(t.code, t.err).toBe(0);
    const doc = JSON.parse(t.out) as {
      events: { kind: string; entity: string; related: string[]; evidence: { during: { targets?: string } } }[];
    };
    const gaps = doc.events.filter((e) => e.kind === 'collection.gap');
    expect(gaps.map((g) => g.entity)).toEqual(['api/collector']);
    expect(gaps[0]!.related.length).toBeGreaterThanOrEqual(6);
    expect(gaps[0]!.evidence.during.targets).toContain('api/ListKafkaConnections');
    const f = await quiet(['-o', 'json', 'fleet', '--at', at]);
    expect(f.code, f.err).toBe(0);
    expect(f.out).toMatch(/"warn": 1\b/);
  });

  if (!full) return;

  it('timeline: one unit per phrase, series labelled with what they count', async () => {
    const r = await incident(['timeline']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      /authentication failures on listener external: \d+ failed connections \(peak \d+(\.\d)? per 1m00s, threshold 5\)/,
    );
    expect(r.out).toMatch(
      /connection storm from principal\/User:svc-reporting: .*\(peak \d+, usually [\d.]+, per 1m00s\)/,
    );
    expect(r.out).not.toMatch(/\/s, (threshold|usually)/);
    expect(r.out).toMatch(/connections\.auth-failures .* failed authentications per poll$/m);
  });

  it('timeline: a start dated back carries detectedAt and ↶; the same event has the same start in every window', async () => {
    const windows = [
      ['--until', '2026-01-01T00:13:00Z'],
      ['--since', '2026-01-01T00:10:00Z', '--until', '2026-01-01T00:13:00Z'],
      ['--since', '2026-01-01T00:11:30Z', '--until', '2026-01-01T00:13:00Z'],
      ['--since', '2026-01-01T00:12:00Z'],
    ];
    const starts = new Set<string>();
    for (const w of windows) {
      const r = await incident(['-o', 'json', 'timeline', '--for', 'shadow-topic/dr-primary/payments', ...w]);
      expect(r.code, r.err).toBe(0);
      const doc = JSON.parse(r.out) as { events: { kind: string; start: string; detectedAt?: string }[] };
      const stopped = doc.events.filter((e) => e.kind === 'shadow.replication-stopped');
      expect(stopped, w.join(' ')).toHaveLength(1);
      const e = stopped[0]!;
      starts.add(e.start);
      expect(e.detectedAt, w.join(' ')).toBeDefined();
      expect(Date.parse(e.detectedAt!)).toBeGreaterThan(Date.parse(e.start));
    }
    expect([...starts]).toEqual(['2026-01-01T00:11:00.000000000Z']);
    const text = await incident(['timeline', '--until', '2026-01-01T00:13:00Z']);
    expect(text.out).toMatch(/^↶2026-01-01T00:11:00Z .*shadow\.replication-stopped/m);
    expect(text.out).toMatch(/↶ start dated back: detected at a later poll/);
  });

  it('trends: the incident still shows its stopped replication and its stalled commits', async () => {
    const shadow = alarms(await incident(['-o', 'json', 'trends', 'shadow-lag', '--by', 'topic']));
    expect(
      shadow.some((a) => a.startsWith('dr-primary/payments@') && a.endsWith(':stopped')),
      shadow.join(' '),
    ).toBe(true);
    const iceberg = alarms(await incident(['-o', 'json', 'trends', 'iceberg-lag', '--by', 'topic']));
    expect(
      iceberg.some((a) => a.endsWith(':stalled')),
      iceberg.join(' '),
    ).toBe(true);
  });

  it('trends: the material-lag floors are the thresholds section of --config', async () => {
    const cfg = tmp.path(`floor-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(cfg, 'thresholds:\n  shadow: { materialLag: 1000000000 }\n  iceberg: { materialLag: 1000000000 }\n');
    expect(alarms(await incident(['--config', cfg, '-o', 'json', 'trends', 'shadow-lag', '--by', 'topic']))).toEqual(
      [],
    );
    expect(alarms(await incident(['--config', cfg, '-o', 'json', 'trends', 'iceberg-lag', '--by', 'topic']))).toEqual(
      [],
    );
  });

  it('trends: every sparkline says its scale; --scale shared draws every row on one', async () => {
    const own = await quiet(['trends', 'shadow-lag', '--by', 'topic']);
    expect(own.code, own.err).toBe(0);
    expect(own.out).toMatch(/SCALE/);
    expect(own.out).toMatch(/dr-primary\/payments .* 0\.\.\d+ records/);
    expect(own.out).toMatch(/each row on its own scale/);
    const shared = await quiet(['trends', 'shadow-lag', '--by', 'topic', '--scale', 'shared']);
    expect(shared.code, shared.err).toBe(0);
    const scales = [...shared.out.matchAll(/ (0\.\.\d+ records) /g)].map((m) => m[1]);
    expect(scales.length).toBeGreaterThan(1);
    expect(new Set(scales).size).toBe(1);
    expect(shared.out).toContain(`one scale for every row, ${scales[0]}`);
    const bad = await quiet(['trends', 'shadow-lag', '--scale', 'wide']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/invalid --scale "wide": expected row or shared/);
  });
}

describe('trustworthy answers (sqlite)', () => {
  const file = tmp.path('history.db');
  beforeAll(async () => {
    await runQuietAndIncident(file);
  }, 120_000);
  readerChecks(() => file, true);
});

/**
 * `collect --simulate --speed 1`: the simulated clock stands still during a call, so each call is
 * timed with a monotonic clock; every answer's rows are counted. Two seconds of real time.
 */
async function realSpeedChecks(db: string): Promise<void> {
  const every = (group: string) => ['--schedule', `${group}=* * * * * *`];
  const rec = await runFlightrec(
    [
      '--db',
      db,
      'collect',
      '--simulate',
      'quiet',
      '--for',
      '2s',
      '--speed',
      '1',
      ...every('connections'),
      ...every('shadow'),
    ].concat(['--schedule', 'upgrade=off', '--schedule', 'iceberg=off']),
    { now: () => Date.now() },
  );
  expect(rec.code, rec.err).toBe(0);
  const r = await runFlightrec(['--db', db, '-o', 'json', 'query', 'polls', '--since', '-1h'], {
    now: () => Date.now(),
  });
  expect(r.code, r.err).toBe(0);
  const polls = (
    JSON.parse(r.out) as { rows: { operation: string; outcome: string; duration: string; rowsReturned: string }[] }
  ).rows.filter((p) => p.outcome === 'ok');
  expect(polls.length).toBeGreaterThan(3);
  const zero = polls.filter((p) => Number(p.duration.replace(/s$/, '')) <= 0).map((p) => p.operation);
  expect(zero, 'polls lasting 0s').toEqual([]);
  for (const op of ['ListKafkaConnections', 'GetShadowLink', 'ListShadowTopics', 'GetShadowTopic']) {
    const mine = polls.filter((p) => p.operation === op);
    expect(mine.length, op).toBeGreaterThan(0);
    expect(mine.filter((p) => BigInt(p.rowsReturned) === 0n).length, `${op} with ROWS 0`).toBe(0);
  }
  // a shadow topic's answer carries the topic and its partitions
  const topic = polls.find((p) => p.operation === 'GetShadowTopic');
  expect(Number(topic?.rowsReturned)).toBeGreaterThan(1);
}

describe('real durations and answer rows under collect --simulate --speed 1 (sqlite)', () => {
  it('every poll has a real duration and the rows its answer carried', async () => {
    await realSpeedChecks(tmp.path('speed.db'));
  }, 60_000);
});

describeWithServer('real durations and answer rows under collect --simulate --speed 1 (postgres)', () => {
  it('every poll has a real duration and the rows its answer carried', async () => {
    const t = await freshPgTarget({ migrated: true });
    try {
      await realSpeedChecks(t.target);
    } finally {
      await t.drop();
    }
  }, 120_000);
});

let pgt: PgTarget | undefined;
describeWithServer('trustworthy answers (postgres)', () => {
  beforeAll(async () => {
    pgt = await freshPgTarget({ migrated: true });
    await runQuietAndIncident(pgt.target, false);
  }, 240_000);
  afterAll(async () => {
    await pgt?.drop();
  });
  readerChecks(() => (pgt as PgTarget).target, false);
});

/**
 * Records the quiet scenario (cluster `quiet`, 15 minutes: 30 rounds, on both engines)
 * and, with `full`, the incident (cluster `incident`) into one database.
 */
async function runQuietAndIncident(db: string, full = true): Promise<void> {
  const clusters = [['quiet', 'quiet', '15m'] as const, ...(full ? [['incident', 'incident', '13m'] as const] : [])];
  for (const [cluster, scenario, duration] of clusters) {
    const r = await runFlightrec([
      '--db',
      db,
      '--cluster',
      cluster,
      'collect',
      '--simulate',
      scenario,
      '--for',
      duration,
      ...EVERY_30S,
    ]);
    if (r.code !== 0) throw new Error(`collect --simulate ${scenario} into ${db}: ${r.err.slice(-500)}`);
  }
}
