import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { memoryIo } from '../helpers/memory-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-demo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flightrec demo (what npm start runs), without a terminal', () => {
  it('records the incident scenario at full speed and prints its timeline and summary', async () => {
    writeFileSync(join(dir, 'flightrec.db'), 'not touched by the demo');
    const io = memoryIo({ cwd: dir });
    expect(await main(['demo'], io)).toBe(0);
    const out = io.out();
    expect(out).toContain('Incident timeline');
    // the incidents the scenario injects, each with its entity
    for (const expected of [
      'connections.broker-empty',
      'broker/2',
      'connections.storm',
      'connections.auth-failures',
      'shadow.task-state',
      'iceberg.catalog-unreachable',
      'shadow.topic-state',
      'dr-primary/payments',
      'connections.group-idle',
    ]) {
      expect(out, expected).toContain(expected);
    }
    expect(out).toContain('Summary');
    expect(io.err()).toContain('recording 25 simulated minutes');
    expect(existsSync(join(dir, 'flightrec-demo.db'))).toBe(true);
    expect(statSync(join(dir, 'flightrec.db')).size).toBe('not touched by the demo'.length);
  }, 120_000);

  it('starts from a fresh database on every run', async () => {
    const db = join(dir, 'flightrec-demo.db');
    writeFileSync(db, 'garbage that is not a database');
    const io = memoryIo({ cwd: dir });
    expect(await main(['demo', '--no-interactive'], io)).toBe(0);
    const stats = memoryIo({ cwd: dir });
    expect(await main(['--db', db, 'db', 'stats'], stats)).toBe(0);
    expect(stats.out()).toMatch(/polls\s+\d+ \(0 failed\)/);
  }, 120_000);

  it('refuses to record into ./flightrec.db', async () => {
    const io = memoryIo({ cwd: dir });
    expect(await main(['demo', '--out', 'flightrec.db'], io)).toBe(2);
    expect(io.err()).toContain('never records into ./flightrec.db');
  });
});
