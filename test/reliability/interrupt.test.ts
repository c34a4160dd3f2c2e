/**
 * Item 9 of the hostile-input issue: Ctrl-C stops a reader within a second. `query --since` over
 * a large range is one long synchronous read; a JavaScript signal handler would wait for its end.
 * The child runs the production entry point (`run()`); SIGINT is sent once it has spent 1.5 s of
 * CPU time (well into the read: start-up takes a fraction of that; the read is of 120 polls of
 * 1,500 connections, since 50 polls were read within 1.5 s under load once the rows were written
 * as bytes), and it must be gone within 1 s.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatTimestampShort } from '../../src/api/codec/timestamp.ts';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { LIST_REQUEST, okRecord, tempDbPath } from '../db/fixtures.ts';
import { ConnectionWorld } from '../helpers/connection-answers.ts';
import { childArgs } from './support/child-script.ts';

const START = 1_767_225_600_000_000_000n;
const POLLS = 120;
let dbPath = '';

beforeAll(() => {
  dbPath = tempDbPath('large.db', 'file');
  const db = openDatabase(dbPath);
  const writer = createHistoryWriter(db);
  const world = new ConnectionWorld({ connections: 1500, churn: 0.01, seed: 5, startNs: START });
  for (let i = 0; i < POLLS; i++) {
    const g = world.next();
    writer.writePoll(okRecord('ListKafkaConnections', g.answer, { at: g.at, request: LIST_REQUEST, cluster: 'big' }));
  }
  writer.close();
  db.close();
}, 120_000);

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

describe.skipIf(process.platform !== 'linux')('Ctrl-C during a long read', () => {
  it('query --since over the whole recording ends within 1 s of SIGINT', async () => {
    const script = await childArgs('run-child.ts');
    const until = formatTimestampShort(START + BigInt(POLLS) * 60_000_000_000n);
    const child = spawn(
      process.execPath,
      [
        ...script,
        '--db',
        dbPath,
        '-o',
        'ndjson',
        'query',
        'connections',
        '--since',
        formatTimestampShort(START),
        '--until',
        until,
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
    );
    let ended = false;
    void exited.then(() => (ended = true));
    // wait until the read is well under way
    while (!ended) {
      let cpu: number;
      try {
        cpu = cpuSeconds(child.pid!);
      } catch {
        break;
      }
      if (cpu >= 1.5) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(ended, `the read ended before it could be interrupted: ${err}`).toBe(false);
    const sent = performance.now();
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const exit = await exited;
    clearTimeout(timer);
    expect(exit.at - sent, `exit ${exit.code} ${exit.signal} ${err}`).toBeLessThan(1000);
    expect(exit.signal === 'SIGINT' || exit.code === 130, `exit ${exit.code} ${exit.signal}`).toBe(true);
  }, 60_000);
});
