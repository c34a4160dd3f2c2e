// History store on PostgreSQL: ingest of one 10,000-connection poll, state of 10,000 connections
// as of T, and bytes per connection sample, with the data and method of bench/store.bench.ts (a
// deterministic world of 10,000 connections with 2 % churn per poll, one poll a minute).
// Run: node scripts/bench.mjs bench/store-pg.bench.ts   (STORE_PG_POLLS overrides the 100 polls)
//
// The server is FLIGHTREC_BENCH_PG (default postgres://postgres@127.0.0.1:5432/postgres); the bench
// creates a database flightrec_b_<random> there and drops it at the end. Without a server the
// figures are reported as skipped.
//
// The store runs on PostgreSQL through the synchronous bridge (src/db/engines/pg: a worker thread owns
// the connection; this thread blocks for each round trip). The bench counts the round trips of
// each timed write, and the time spent waiting for them, from the handle's `waits` (every reply
// the calling thread waited for: reads, batches of writes, commits).
//
// Bytes per sample: after VACUUM (ANALYZE), pg_total_relation_size (heap, TOAST, indexes, free
// space and visibility maps) of every table of the store, summed over each partition tree
// (pg_partition_tree; a plain table is counted as itself), divided by the connection samples written; the heap-only figure is
// pg_table_size (heap and TOAST, no indexes). The whole store is counted, as SQLite's figure
// counts the whole file; the connection tables alone are given in the note. The marginal figure
// is what as many polls again add to that total, per sample (the store's fixed costs left out),
// compared with SQLite's store.marginal_bytes_per_connection_sample, measured the same way.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { encodeAnswer, parseAnswer } from '../src/api/wire/answers.ts';
import type { ListKafkaConnectionsResponse } from '../src/api/schema/connection.ts';
import { createHistoryWriter, openDatabase } from '../src/db/index.ts';
import type { PollRecord } from '../src/db/poll-record.ts';
import { ConnectionWorld } from '../test/helpers/connection-answers.ts';
import { listPollRecord, writeMorePolls } from './lib/list-poll.ts';
import { median, reportFigure, round, type WallCpuTiming } from './lib/figures.ts';
import { openBenchServer, reportSkipped, type BenchDatabase } from './lib/pg-bench-db.ts';

const CONNECTIONS = 10_000;
const POLLS = Number(process.env.STORE_PG_POLLS ?? 100);
if (!(POLLS >= 30)) throw new Error('STORE_PG_POLLS must be at least 30');
/** polls whose ingest is timed end to end from the JSON text, as in store.bench.ts (every third from the 21st) */
const TIMED = new Set(Array.from({ length: Math.min(21, Math.floor((POLLS - 20) / 3)) }, (_, i) => 20 + i * 3));
const log = (s: string): void => void process.stderr.write(`${s}\n`);
const ms = (v: number, d = 1): number => round(v, d);

function record(answer: ListKafkaConnectionsResponse, at: bigint, bytes: number): PollRecord {
  return listPollRecord(answer, { at, durationNs: 50_000_000n, bytes, round: `r${at}` });
}

function measure<T>(fn: () => T): { value: T; wall: number; cpu: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  const value = fn();
  const wall = performance.now() - t;
  const d = process.cpuUsage(c);
  return { value, wall, cpu: (d.user + d.system) / 1000 };
}

/** Round trips through the bridge: how many, and the wall time spent waiting for them. */
/** The replies the bridge handle waited for so far (its `waits`: one per round trip) and the time spent waiting. */
function roundTrips(handle: object): { count: number; ms: number } {
  const waits = (handle as { waits?: { count: number; ms: number } }).waits;
  if (waits === undefined) throw new Error('the PostgreSQL handle does not count its round trips (waits)');
  return waits;
}

/** A figure of the last recorded run of bench/store.bench.ts (SQLite's), if any. */
function sqliteFigure(name: string): number | undefined {
  try {
    const latest = JSON.parse(
      readFileSync(fileURLToPath(new URL('./results/latest.json', import.meta.url)), 'utf8'),
    ) as { figures?: { name: string; value: number }[] };
    return latest.figures?.find((f) => f.name === name)?.value;
  } catch {
    return undefined;
  }
}

/** Each table of the store (a partitioned one summed over its partition tree): with indexes, and heap and TOAST alone; largest first. */
async function tableSizes(server: BenchDatabase): Promise<{ name: string; total: string; heap: string }[]> {
  return server.query<{ name: string; total: string; heap: string }>(
    `SELECT c.relname AS name,
            sum(pg_total_relation_size(coalesce(t.relid, c.oid)))::text AS total,
            sum(pg_table_size(coalesce(t.relid, c.oid)))::text AS heap
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
       LEFT JOIN LATERAL pg_partition_tree(c.oid) t ON true
      WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
      GROUP BY c.relname
      ORDER BY sum(pg_total_relation_size(coalesce(t.relid, c.oid))) DESC`,
  );
}

/** The whole store's size: the sum of tableSizes. */
async function storeBytes(server: BenchDatabase): Promise<number> {
  return (await tableSizes(server)).reduce((s, r) => s + Number(r.total), 0);
}

async function main(): Promise<void> {
  const opened = await openBenchServer();
  if ('skipped' in opened) {
    reportSkipped('store_pg', opened.skipped);
    return;
  }
  const server = opened;
  const load = loadavg()[0]!.toFixed(1);
  try {
    // 1. ingest
    const db = openDatabase(server.url);
    const writer = createHistoryWriter(db);
    const world = new ConnectionWorld({ connections: CONNECTIONS, churn: 0.02, seed: 42 });
    const ingest: { wall: number; cpu: number; parse: number; write: number; trips: number; tripMs: number }[] = [];
    const writes: number[] = [];
    const times: bigint[] = [];
    let samples = 0;
    const started = performance.now();
    for (let i = 0; i < POLLS; i++) {
      const { at, answer } = world.next();
      times.push(at);
      samples += answer.connections.length;
      if (TIMED.has(i)) {
        const body = Buffer.from(encodeAnswer('ListKafkaConnections', answer));
        const p = measure(() => parseAnswer('ListKafkaConnections', body));
        const before = roundTrips(db.sqlite);
        const w = measure(() => writer.writePoll(record(p.value, at, body.length)));
        const after = roundTrips(db.sqlite);
        ingest.push({
          wall: p.wall + w.wall,
          cpu: p.cpu + w.cpu,
          parse: p.wall,
          write: w.wall,
          trips: after.count - before.count,
          tripMs: after.ms - before.ms,
        });
        writes.push(w.wall);
      } else {
        writes.push(measure(() => writer.writePoll(record(answer, at, 0))).wall);
      }
    }
    writer.close();
    db.close();
    const ingestS = (performance.now() - started) / 1000;
    log(`ingested ${POLLS} polls (${samples} samples) in ${round(ingestS, 1)} s, load average ${load}`);

    // 2. sizes, after VACUUM
    await server.query('VACUUM (ANALYZE)');
    const sizes = await tableSizes(server);
    const total = sizes.reduce((s, r) => s + Number(r.total), 0);
    const heap = sizes.reduce((s, r) => s + Number(r.heap), 0);
    const conn = sizes.filter((r) => r.name.startsWith('conn_'));
    const connTotal = conn.reduce((s, r) => s + Number(r.total), 0);
    const connHeap = conn.reduce((s, r) => s + Number(r.heap), 0);
    const top = sizes
      .slice(0, 5)
      .map((r) => `${r.name} ${r.total} (heap+TOAST ${r.heap})`)
      .join(', ');
    log(`tables: ${sizes.map((r) => `${r.name} ${r.total}/${r.heap}`).join(', ')}`);
    const rowCounts = await server.query<{ entities: string; versions: string; chunks: string; frames: string }>(
      `SELECT (SELECT count(*) FROM conn_entity)::text AS entities, (SELECT count(*) FROM conn_version)::text AS versions,
              (SELECT count(*) FROM conn_chunk)::text AS chunks, (SELECT count(*) FROM conn_frame)::text AS frames`,
    );
    const counts = rowCounts[0]!;
    const rows = `rows: conn_entity ${counts.entities}, conn_version ${counts.versions}, conn_chunk ${counts.chunks}, conn_frame ${counts.frames}`;
    log(rows);

    // 3. state as of T, in a process that only reads (bench/lib/store-reads.ts, as for SQLite)
    // poll 60 and 27 of store.bench.ts's 100 (earlier ones in a shorter run: STORE_PG_POLLS)
    const at = times[Math.min(60, POLLS - 1)]! + 1n;
    const other = times[Math.min(27, Math.floor(POLLS / 2))]! + 1n;
    const script = fileURLToPath(new URL('./lib/store-reads.ts', import.meta.url));
    const out = execFileSync(process.execPath, ['--import', 'tsx', script, server.url, String(at), String(other)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const reads = JSON.parse(out.trim().split('\n').at(-1)!) as {
      expected: number;
      cold: WallCpuTiming;
      warm: WallCpuTiming;
    };

    // 4. what a longer recording adds per sample (as store.bench.ts measures it for SQLite): the
    // same world for as many polls again, then the same sizes after VACUUM; the store's fixed
    // costs (tables and partitions made ahead, the open batch's working space, the dictionary)
    // are in both sizes and drop out
    const moreSamples = writeMorePolls(server.url, world, POLLS);
    await server.query('VACUUM (ANALYZE)');
    const grownSizes = await tableSizes(server);
    const grownTotal = grownSizes.reduce((sum, r) => sum + Number(r.total), 0);
    const before = new Map(sizes.map((r) => [r.name, Number(r.total)]));
    const growth = grownSizes
      .map((r) => ({ name: r.name, added: Number(r.total) - (before.get(r.name) ?? 0) }))
      .filter((r) => r.added !== 0)
      .map((r) => `${r.name} ${ms(r.added / moreSamples, 2)}`)
      .join(', ');
    log(`added per sample over ${POLLS} more polls: ${growth}`);

    // VACUUM leaves the space of deleted rows (e.g. head frames replaced by sealed chunks) in the
    // files for reuse; VACUUM FULL rewrites them, so the difference is that free space, not the
    // encoding (measured on the grown store, after the reads and the growth that need the files as
    // the writer left them)
    await server.query('VACUUM FULL');
    const compactedTotal = await storeBytes(server);

    const fewer = POLLS === 100 ? '' : ` (${POLLS} polls, not store.bench.ts's 100, to keep the run short)`;
    const sqlite = sqliteFigure('store.bytes_per_connection_sample');
    const sqliteMarginal = sqliteFigure('store.marginal_bytes_per_connection_sample');
    const perSample = total / samples;
    const marginal = (grownTotal - total) / moreSamples;
    reportFigure({
      name: 'store_pg.ingest_poll_10k_median_ms',
      value: ms(median(ingest.map((x) => x.wall))),
      unit: 'ms',
      goal: { op: '<=', value: 250 },
      note:
        `parse+decode ${ms(median(ingest.map((x) => x.parse)))} ms + write+commit ${ms(median(ingest.map((x) => x.write)))} ms, medians of ${ingest.length} polls${fewer}; ` +
        `a write makes ${median(ingest.map((x) => x.trips))} round trips to PostgreSQL (median), waiting ${ms(median(ingest.map((x) => x.tripMs)))} ms for them; load average ${load}`,
    });
    reportFigure({
      name: 'store_pg.ingest_poll_10k_cpu_ms',
      value: ms(median(ingest.map((x) => x.cpu))),
      unit: 'ms',
      note: "the same, CPU time of this process (the bridge's worker thread included; PostgreSQL's own not)",
    });
    reportFigure({
      name: 'store_pg.write_poll_10k_median_ms',
      value: ms(median(writes)),
      unit: 'ms',
      note: `store only (write + commit), all ${POLLS} polls, batch seals included (p90 ${ms([...writes].sort((a, b) => a - b)[Math.ceil(0.9 * writes.length) - 1]!)} ms); ${POLLS} polls took ${round(ingestS, 1)} s`,
    });
    reportFigure({
      name: 'store_pg.bytes_per_connection_sample',
      value: ms(perSample),
      unit: 'B',
      ...(sqlite === undefined ? {} : { goal: { op: '<=' as const, value: ms(sqlite * 1.1) } }),
      note:
        `${total} bytes / ${samples} samples${fewer}: pg_total_relation_size over the partition trees of every store table after VACUUM (heap, TOAST, indexes); ` +
        `conn_* tables ${connTotal} bytes (${ms(connTotal / samples)} B/sample); largest: ${top}; ` +
        (sqlite === undefined
          ? 'no SQLite figure recorded to compare with'
          : `goal: within 10 % of SQLite's store.bytes_per_connection_sample (${sqlite} B, ${ms((perSample / sqlite - 1) * 100)} % here)`),
    });
    reportFigure({
      name: 'store_pg.heap_bytes_per_connection_sample',
      value: ms(heap / samples),
      unit: 'B',
      note: `${heap} bytes: pg_table_size (heap and TOAST, no indexes) over the same tables; conn_* tables ${connHeap} bytes; indexes are ${ms(((total - heap) / total) * 100)} % of the total`,
    });
    reportFigure({
      name: 'store_pg.marginal_bytes_per_connection_sample',
      value: ms(marginal),
      unit: 'B',
      note:
        `the store grew from ${total} to ${grownTotal} bytes (after VACUUM) over ${POLLS} more polls of the same world (${moreSamples} samples); ` +
        (sqliteMarginal === undefined
          ? 'no SQLite figure recorded to compare with'
          : `SQLite's store.marginal_bytes_per_connection_sample: ${sqliteMarginal} B (${ms((marginal / sqliteMarginal - 1) * 100)} % here)`),
    });
    reportFigure({
      name: 'store_pg.compacted_bytes_per_connection_sample',
      value: ms(compactedTotal / (samples + moreSamples)),
      unit: 'B',
      note: `${compactedTotal} bytes / ${samples + moreSamples} samples: the grown store (${2 * POLLS} polls) after VACUUM FULL (the files rewritten without the free space of deleted rows); at ${POLLS} polls: ${rows}`,
    });
    reportFigure({
      name: 'store_pg.state_at_10k_ms',
      value: ms(reads.cold.wall),
      unit: 'ms',
      goal: { op: '<=', value: 100 },
      note: `${reads.expected} rows as of a mid-history instant, fresh reader per run, in a process that only reads (min ${ms(reads.cold.min)}, p90 ${ms(reads.cold.p90)}, CPU ${ms(reads.cold.cpu)})`,
    });
    reportFigure({
      name: 'store_pg.state_at_10k_warm_ms',
      value: ms(reads.warm.wall),
      unit: 'ms',
      note: `one reader alternating between two instants in different batches (min ${ms(reads.warm.min)}, CPU ${ms(reads.warm.cpu)})`,
    });
  } finally {
    await server.drop();
  }
}

await main();
