/**
 * Issue 17, "done when": three collector processes record into one PostgreSQL database, two of
 * them configured for the same cluster. A records x, B records x too (one of them waits as the
 * standby), C records y and z; the simulated clusters are served over loopback HTTP, every
 * schedule fires every 3 s, the lease TTL is 1.5 s. The active collector of x is SIGKILLed; the
 * others go on, then stop. The database then shows: no round of any cluster recorded twice, at
 * most one round of x missed around the kill (the hand-over), y and z complete for as long as
 * their collector ran, every poll reconstructed as the simulator served it, and the standby
 * said that it took over, naming the collector it replaced.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/schema/operations.ts';
import { parseAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { startSimServer, type SimServer } from '../../src/sim/index.ts';
import { startFlightrec, type FlightrecProcess } from '../helpers/flightrec-process.ts';
import { describeWithServer, freshPgTarget } from '../helpers/pg.ts';

/** Every schedule fires every INTERVAL_S seconds (node-cron, seconds first). */
const INTERVAL_S = 3;
const INTERVAL_MS = INTERVAL_S * 1000;
/** Below the interval: a killed collector's lease expires before the next round but one. */
const LEASE_TTL = '1500ms';
const OPS: readonly OperationName[] = ['GetUpgradeStatus', 'ListKafkaConnections'];

const dir = mkdtempSync(join(tmpdir(), 'flightrec-standby-'));
const sims: SimServer[] = [];
afterAll(async () => {
  for (const s of sims) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Served {
  readonly op: OperationName | undefined;
  readonly status: number;
  readonly body: Buffer;
}

function configFile(name: string, clusters: readonly { name: string; baseUrl: string }[]): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    [
      'jitter: 0',
      `leaseTtl: ${LEASE_TTL}`,
      'shutdownTimeout: 5s',
      'schedules:',
      `  connections: "*/${INTERVAL_S} * * * * *"`,
      `  upgrade: "*/${INTERVAL_S} * * * * *"`,
      '  iceberg: off',
      '  shadow: off',
      'clusters:',
      ...clusters.map((c) => `  - { name: ${c.name}, baseUrl: "${c.baseUrl}", connections: { fanout: false } }`),
      '',
    ].join('\n'),
  );
  return path;
}

/** Waits until `p` has printed `n` lines matching `pattern` after line `from`; the last of them. */
async function nthLine(p: FlightrecProcess, pattern: RegExp, n: number, timeoutMs: number, from = 0) {
  let at = from;
  let line;
  for (let i = 0; i < n; i++) {
    line = await p.waitFor(pattern, timeoutMs, at);
    at = p.lines.indexOf(line) + 1;
  }
  return { line: line!, index: at };
}

/** The schedule slot of a poll: node-cron fires on the slot's whole second, the round starts just after it. */
const slotOf = (scheduledNs: bigint): number => Math.floor(Number(scheduledNs / 1_000_000n) / INTERVAL_MS);

/** Records with a standby pair for x and a collector for y and z into `db`; what the database holds afterwards. */
async function recordWithTakeOver(db: string) {
  const served = new Map<string, Served[]>();
  const urls = new Map<string, string>();
  for (const [i, name] of ['x', 'y', 'z'].entries()) {
    const sim = await startSimServer({ seed: 40 + i, connections: 25 });
    sims.push(sim);
    const list: Served[] = [];
    served.set(name, list);
    sim.onAnswer((op, _request, status, body) => list.push({ op, status, body }));
    urls.set(name, sim.baseUrl);
  }
  const cluster = (name: string) => ({ name, baseUrl: urls.get(name)! });
  const argv = (config: string): string[] => ['--db', db, '--config', config, 'collect'];
  const a = startFlightrec(argv(configFile('a', [cluster('x')])));
  const b = startFlightrec(argv(configFile('b', [cluster('x')])));
  const c = startFlightrec(argv(configFile('c', [cluster('y'), cluster('z')])));
  const xRound = / x ListKafkaConnections ok /;
  const standbyLine = /^x: another collector \(.*\) is recording this cluster into this database/;

  // one of A and B records x, the other says once that it waits as a standby
  const started = 90_000;
  const standby = await Promise.any(
    [a, b].map(async (p) => {
      await p.waitFor(standbyLine, started);
      return p;
    }),
  );
  const active = standby === a ? b : a;
  expect(standby.err(), 'the standby polled x').not.toMatch(xRound);
  expect(standby.err()).toContain(`pid ${active.pid} `);
  await c.waitFor(/ y ListKafkaConnections ok /, started);
  await c.waitFor(/ z ListKafkaConnections ok /, started);

  // three rounds of x by the active one, then SIGKILL right after a round was written
  const before = await nthLine(active, xRound, 3, 30_000);
  // both operations of that round written (they run one after the other, in either order)
  const second = before.line.text.slice(0, 'YYYY-MM-DDTHH:MM:SS'.length);
  await active.waitFor(new RegExp(`^${second}.* x GetUpgradeStatus ok `), 10_000);
  active.child.kill('SIGKILL');
  const killedAt = Date.now();
  const killed = await active.exit;
  expect(killed.signal).toBe('SIGKILL');

  // the standby takes over, and records four more rounds of x; C goes on meanwhile
  const takeOver = await standby.waitFor(/^x: taking over the recording from /, 30_000);
  const after = await nthLine(standby, xRound, 4, 30_000, standby.lines.indexOf(takeOver));
  const cLines = c.lines.length;
  await nthLine(c, / z ListKafkaConnections ok /, 1, 30_000, cLines);
  standby.child.kill('SIGINT');
  c.child.kill('SIGINT');
  const [bExit, cExit] = await Promise.all([standby.exit, c.exit]);
  expect(bExit, standby.err().slice(-2000)).toEqual({ code: 0, signal: null });
  expect(cExit, c.err().slice(-2000)).toEqual({ code: 0, signal: null });
  for (const s of sims.splice(0)) await s.close();

  const store = openDatabase(db, { readonly: true });
  try {
    const reader = createHistoryReader(store);
    const polls = reader.polls({});
    const rebuilt = new Map(polls.map((p) => [p.id, reader.reconstructAnswer(p.id)]));
    return {
      polls,
      rebuilt,
      served,
      killedAt,
      killSlot: Math.floor(killedAt / INTERVAL_MS),
      takeOver,
      standby,
      active,
      c,
      lastActiveRound: before.line,
      firstStandbyRounds: after,
    };
  } finally {
    store.close();
  }
}

describeWithServer('standby collectors on one PostgreSQL database', () => {
  it('hand over a cluster when the active collector is SIGKILLed: no duplicate, at most one round missed, the others complete', async () => {
    const target = await freshPgTarget();
    const run = await recordWithTakeOver(target.target);
    const { polls, rebuilt, served, killSlot } = run;
    const byKey = new Map<string, typeof polls>();
    for (const p of polls) {
      const key = `${p.cluster} ${p.operation}`;
      byKey.set(key, [...(byKey.get(key) ?? []), p]);
    }
    expect([...byKey.keys()].sort()).toEqual(['x', 'y', 'z'].flatMap((c) => OPS.map((op) => `${c} ${op}`)).sort());

    for (const [key, list] of byKey) {
      const [cluster, op] = key.split(' ') as [string, OperationName];
      const slots = list.map((p) => slotOf(p.scheduledTime));
      // (a) one poll per round and operation: no slot twice, whoever wrote it
      expect(new Set(slots).size, `${key}: a round recorded twice: ${slots.join(' ')}`).toBe(slots.length);
      const sorted = [...slots].sort((x, y) => x - y);
      const steps = sorted.slice(1).map((s, i) => s - sorted[i]!);
      if (cluster === 'x') {
        console.log(`${key}: rounds ${sorted.map((x) => x - killSlot).join(' ')} (0: the round of the kill)`);
        // (b) the hand-over: at most one round missed, and only around the kill
        const missed = sorted.filter((s, i) => i > 0 && s - sorted[i - 1]! > 1);
        expect(Math.max(...steps), `${key}: rounds ${sorted.join(' ')}`).toBeLessThanOrEqual(2);
        expect(missed.length, `${key}: rounds ${sorted.join(' ')}`).toBeLessThanOrEqual(1);
        for (const s of missed)
          expect(Math.abs(s - 1 - killSlot), `${key}: gap away from the kill`).toBeLessThanOrEqual(1);
        expect(sorted.filter((s) => s <= killSlot).length, `${key}: before the kill`).toBeGreaterThanOrEqual(3);
        expect(sorted.filter((s) => s > killSlot).length, `${key}: after the kill`).toBeGreaterThanOrEqual(4);
      } else {
        // (c) a poll for every round while the collector ran, across the kill of another collector
        expect(
          steps.every((d) => d === 1),
          `${key}: rounds ${sorted.join(' ')}`,
        ).toBe(true);
        expect(sorted[0]!).toBeLessThan(killSlot);
        expect(sorted.at(-1)!).toBeGreaterThan(killSlot + 2);
      }
      // (d) every poll reconstructs as the simulator served it, in order; for x at most the answer
      // in flight at the kill is missing
      const answers = served.get(cluster)!.filter((s) => s.op === op && s.status === 200);
      const recorded = [...list].sort((x, y) => Number(x.id - y.id));
      let next = 0;
      let skipped = 0;
      for (const p of recorded) {
        const r = rebuilt.get(p.id)!;
        expect(r.poll.outcome, `${key} poll ${p.id}`).toBe('ok');
        expect(r.failure).toBeUndefined();
        const expected = (k: number) => parseAnswer(op, answers[k]!.body);
        while (next < answers.length && !isDeepStrictEqual(r.answer, expected(next))) {
          next++;
          skipped++;
        }
        expect(next, `${key} poll ${p.id}: no served answer equals it`).toBeLessThan(answers.length);
        expect(r.answer).toStrictEqual(expected(next));
        next++;
      }
      skipped += answers.length - next;
      expect(skipped, `${key}: answers served but not recorded`).toBeLessThanOrEqual(cluster === 'x' ? 1 : 0);
    }

    // (e) the standby said that it took over, naming the killed collector
    expect(run.takeOver.text).toContain(`pid ${run.active.pid} `);
    const delay = run.takeOver.at - run.killedAt;
    console.log(
      `standby take-over ${delay} ms after the SIGKILL (interval ${INTERVAL_MS} ms, lease TTL ${LEASE_TTL}): ${run.takeOver.text}`,
    );
    for (const p of [run.standby, run.c]) expect(p.err()).not.toMatch(/^error:|flightrec:/m);
    await target.drop();
  }, 180_000);
});
