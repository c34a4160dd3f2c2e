/**
 * The recording the command-line bench asks questions of: the simulated cluster (incident
 * scenario, 10,000 connections, manual clock) polled with ListKafkaConnections `polls` times
 * `intervalS` apart, each answer (a) saved as `poll-NNN.json`, byte for byte as the server sent
 * it, and (b) parsed and written into `flightrec.db` as the collector does.
 */
import { ok } from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { operationPath } from '../../src/api/schema/operations.ts';
import { parseAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { startSimServer } from '../../src/sim/index.ts';
import { listPollRecord } from './list-poll.ts';

/** What a recording holds: its database, its saved answers, the poll times and one uid listed in every poll. */
export interface CliRecording {
  readonly dir: string;
  readonly db: string;
  /** the saved answers, oldest first (paths relative to `dir`) */
  readonly files: readonly string[];
  /** the poll times, ns since the epoch, as decimal strings */
  readonly times: readonly string[];
  /** a connection listed in every poll */
  readonly uid: string;
  readonly jsonBytes: number;
  readonly samples: number;
  readonly seconds: number;
}

/** How a recording is made. */
export interface CliRecordingOptions {
  readonly connections: number;
  readonly polls: number;
  readonly intervalS: number;
  readonly scenario: string;
  readonly seed: number;
}

const PAGE_SIZE = 100_000; // one page holds every connection (the recently closed ones too)
const MANIFEST = 'recording.json';

/** The saved answer of poll `i`, relative to the recording's directory. */
export const pollFileName = (i: number): string => `poll-${String(i).padStart(3, '0')}.json`;

/**
 * The recording in `dir`: the one made there before with the same options (its manifest names
 * them), else a new one.
 */
export async function cliRecording(
  dir: string,
  opts: CliRecordingOptions,
  log: (s: string) => void,
): Promise<CliRecording> {
  const manifest = join(dir, MANIFEST);
  if (existsSync(manifest)) {
    const kept = JSON.parse(readFileSync(manifest, 'utf8')) as CliRecording & { options: CliRecordingOptions };
    if (JSON.stringify(kept.options) === JSON.stringify(opts)) {
      log(`reusing the recording in ${dir}`);
      return { ...kept, dir, db: join(dir, 'flightrec.db') };
    }
    throw new Error(`${dir} holds a recording made with other options; name an empty directory`);
  }
  mkdirSync(dir, { recursive: true });
  const made = await record(dir, opts, log);
  writeFileSync(manifest, `${JSON.stringify({ ...made, options: opts }, null, 2)}\n`);
  return made;
}

async function record(dir: string, opts: CliRecordingOptions, log: (s: string) => void): Promise<CliRecording> {
  const sim = await startSimServer({
    seed: opts.seed,
    scenario: opts.scenario,
    connections: opts.connections,
    clock: 'manual',
    port: 0,
  });
  const url = sim.baseUrl + operationPath('ListKafkaConnections');
  const requestBody = JSON.stringify({ pageSize: PAGE_SIZE });
  const headers = { 'content-type': 'application/json', 'connect-protocol-version': '1' };
  const dbPath = join(dir, 'flightrec.db');
  const started = performance.now();
  try {
    const db = openDatabase(dbPath);
    const writer = createHistoryWriter(db);
    const times: string[] = [];
    const files: string[] = [];
    let jsonBytes = 0;
    let samples = 0;
    let everywhere: string[] = [];
    for (let i = 0; i < opts.polls; i++) {
      if (i > 0) sim.advance(opts.intervalS);
      const at = sim.world.now();
      const t0 = performance.now();
      const res = await fetch(url, { method: 'POST', headers, body: requestBody });
      const body = Buffer.from(await res.arrayBuffer());
      ok(res.status === 200, `poll ${i}: HTTP ${res.status}`);
      const fetchNs = BigInt(Math.round((performance.now() - t0) * 1e6));
      writeFileSync(join(dir, pollFileName(i)), body);
      const answer = parseAnswer('ListKafkaConnections', body);
      ok(answer.connections.length === Number(answer.totalSize), `poll ${i}: a full answer`);
      writer.writePoll(
        listPollRecord(answer, {
          at,
          durationNs: fetchNs,
          bytes: body.length,
          round: `r${i}`,
          cluster: 'sim',
          pageSize: PAGE_SIZE,
        }),
      );
      times.push(String(at));
      files.push(pollFileName(i));
      jsonBytes += body.length;
      samples += answer.connections.length;
      const uids = new Set(answer.connections.map((c) => c.uid));
      everywhere = i === 0 ? [...uids] : everywhere.filter((u) => uids.has(u));
      if ((i + 1) % 25 === 0) log(`  recorded ${i + 1} of ${opts.polls} polls`);
    }
    writer.close();
    db.close();
    ok(everywhere.length > 0, 'a connection is listed in every poll');
    const seconds = (performance.now() - started) / 1000;
    return { dir, db: dbPath, files, times, uid: everywhere[0]!, jsonBytes, samples, seconds };
  } finally {
    await sim.close();
  }
}
