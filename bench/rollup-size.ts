// Rollup size and rollUp time: the simulated cluster (quiet scenario) recorded in accelerated time
// into a temporary SQLite file, every operation polled every 30 s, then rollUp over the whole
// recording. Prints the rollup tables' bytes (dbstat), extrapolated to one day, rollUp's time, and
// the delay of this thread's event loop meanwhile: rollUp runs in the collector's worker thread
// (RollUpThread, as retention runs it), or with `main` on this thread (as it did before the worker).
//
// Run: node --import tsx bench/rollup-size.ts [hours=24] [connections=1000] [worker|main]
// (not a .bench.ts file: `npm run bench` does not run it; it backs the figures in docs/storage.md)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { OperationName, RequestOf, ResponseOf } from '../src/api/schema/operations.ts';
import {
  createHistoryReader,
  createHistoryWriter,
  createRollupStore,
  openDatabase,
  openHistoryMaintenance,
  type PollRecord,
} from '../src/db/index.ts';
import { createRollUp, RollUpThread } from '../src/report/rollup/index.ts';
import { DEFAULT_THRESHOLDS } from '../src/report/timeline/thresholds.ts';
import { createWorld, isSimError, loadScenario } from '../src/sim/index.ts';

const S = 1_000_000_000n;
const hours = Number(process.argv[2] ?? 24);
const connections = Number(process.argv[3] ?? 1000);
const onMain = process.argv[4] === 'main';
const dir = mkdtempSync(join(tmpdir(), 'flightrec-rollup-size-'));
const path = join(dir, 'history.db');

try {
  const world = createWorld({ seed: 3, scenario: loadScenario('quiet'), connections });
  const start = world.now();
  const links = world.describe().links;
  const writer = createHistoryWriter(openDatabase(path));
  const call = (op: OperationName, target: string, request: RequestOf<OperationName>, at: bigint): void => {
    world.advanceTo(at);
    // one operation type for the checker (the generic signature over the union is too deep for it)
    const res: unknown = world.answer(op as 'GetUpgradeStatus', request as RequestOf<'GetUpgradeStatus'>);
    if (isSimError(res)) return;
    const answer = res as ResponseOf<OperationName>;
    const conns = op === 'ListKafkaConnections' ? (answer as ResponseOf<'ListKafkaConnections'>) : undefined;
    const record: PollRecord = {
      cluster: 'sim',
      operation: op,
      target,
      request,
      round: `r${at}`,
      attempt: 1,
      scheduledAt: at,
      startedAt: at,
      endedAt: at + S / 10n,
      outcome: { ok: true, answer, bytes: 0 },
      ...(conns === undefined
        ? {}
        : {
            coverage: { rowsReturned: conns.connections.length, totalSize: conns.totalSize, fanoutCalls: 1, slice: '' },
          }),
    };
    writer.writePoll(record);
  };
  const t0 = performance.now();
  const polls = (hours * 3600) / 30;
  for (let i = 0; i < polls; i++) {
    const at = start + BigInt(i * 30) * S;
    call('ListKafkaConnections', '', { filter: '', orderBy: '', pageSize: 20_000 }, at);
    for (const link of links) {
      call('GetShadowLink', link, { name: link }, at);
      call('ListShadowTopics', link, { shadowLinkName: link }, at);
    }
    call('GetUpgradeStatus', '', {}, at);
    call('GetIcebergStatus', '', { topicsFilter: [] }, at);
    if (i % 240 === 0) process.stderr.write(`recorded ${i / 120} h\n`);
  }
  writer.close();
  const recordMs = performance.now() - t0;

  const db = openDatabase(path);
  const reader = createHistoryReader(db);
  const until = start + BigInt(hours * 3600) * S;
  // the floor: this thread's event loop delay over 3 s with nothing to do (a loaded machine's share)
  const idle = monitorEventLoopDelay({ resolution: 5 });
  idle.enable();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  idle.disable();
  // a small write transaction of this thread every 50 ms, as the collector's polls: with rollUp in
  // the worker it may wait for the worker's write lock (busy timeout), which is timed here
  db.sqlite.exec('CREATE TABLE IF NOT EXISTS bench_probe (x INTEGER)');
  const probe = db.sqlite.prepare('INSERT INTO bench_probe (x) VALUES (?)');
  const probeMs: number[] = [];
  const probing = setInterval(() => {
    const t = performance.now();
    db.sqlite.transaction(() => probe.run(probeMs.length)).immediate();
    probeMs.push(performance.now() - t);
  }, 50);
  const thread = onMain ? undefined : new RollUpThread({ database: path, thresholds: DEFAULT_THRESHOLDS });
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const t1 = performance.now();
  const c1 = process.cpuUsage();
  if (thread === undefined) await createRollUp(reader, createRollupStore(db))('sim', until);
  else {
    try {
      await thread.run('sim', until);
    } finally {
      await thread.close();
    }
  }
  const rollUpMs = performance.now() - t1;
  clearInterval(probing);
  const cpu = process.cpuUsage(c1);
  const rollUpCpuMs = (cpu.user + cpu.system) / 1000;
  loop.disable();
  const sizes = db.sqlite
    .prepare(
      `SELECT coalesce(t.name, s.name) AS tbl, sum(s.pgsize) AS bytes FROM dbstat s
       LEFT JOIN sqlite_master i ON i.name = s.name AND i.type = 'index' LEFT JOIN sqlite_master t ON t.name = i.tbl_name
       WHERE coalesce(t.name, s.name) LIKE 'rollup_%' GROUP BY tbl ORDER BY tbl`,
    )
    .all() as { tbl: string; bytes: number }[];
  const rows = Object.fromEntries(
    sizes.map((s) => [s.tbl, Number(db.sqlite.prepare(`SELECT count(*) FROM ${s.tbl}`).pluck().get())]),
  );
  const total = sizes.reduce((n, s) => n + Number(s.bytes), 0);
  const perDay = (v: number): number => Math.round((v * 24) / hours);
  const groups = rows.rollup_group ?? 0;
  console.log(
    `recorded ${hours} h of ${connections} connections (${polls} polls per operation) in ${Math.round(recordMs)} ms`,
  );
  const where = onMain ? 'on the main thread' : 'in the worker thread';
  console.log(
    `rollUp ${where} over ${hours} h: ${Math.round(rollUpMs)} ms wall, ${Math.round(rollUpCpuMs)} ms CPU (all threads)`,
  );
  const ms = (ns: number): string => (ns / 1e6).toFixed(1);
  console.log(
    `main thread's event loop delay during rollUp: p99 ${ms(loop.percentile(99))} ms, max ${ms(loop.max)} ms`,
  );
  console.log(`  (idle for 3 s before it: p99 ${ms(idle.percentile(99))} ms, max ${ms(idle.max)} ms)`);
  probeMs.sort((a, b) => a - b);
  const p99 = probeMs[Math.floor(probeMs.length * 0.99)] ?? 0;
  console.log(
    `main thread's write transactions every 50 ms meanwhile: ${probeMs.length}, ` +
      `p99 ${p99.toFixed(1)} ms, the longest ${(probeMs.at(-1) ?? 0).toFixed(1)} ms`,
  );
  console.log(`connection groups: ${groups}`);
  for (const s of sizes)
    console.log(`  ${s.tbl.padEnd(16)} ${String(rows[s.tbl]).padStart(8)} rows ${String(s.bytes).padStart(10)} bytes`);
  console.log(`rollup tables: ${total} bytes for ${hours} h, about ${perDay(total)} bytes per day`);
  console.log(`raw database: ${openHistoryMaintenance(db).stats().fileBytes} bytes`);
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
