/**
 * The simulator's `world.extreme_values` knob serves the widest values the wire allows (total
 * counters just below 2^64, shard ids and ports near 2^32), and the collector records them
 * exactly: nothing refused, every digit kept, the server-dialect filter matches them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJsonLossless, type JsonValue } from '../../src/api/codec/lossless-json.ts';
import { main } from '../../src/cli/main.ts';
import { parseScenario, startSimServer } from '../../src/sim/index.ts';
import { memoryIo } from '../helpers/memory-io.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-extreme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCENARIO = `
name: widths
description: every unsigned field near its maximum
world:
  connections: 40
  extreme_values: true
`;

describe('world.extreme_values', () => {
  it('is refused when not a boolean, with its line', () => {
    expect(() => parseScenario('name: x\ndescription: y\nworld:\n  extreme_values: 3\n', 'bad.yaml')).toThrow(
      /bad\.yaml:4:.*world\.extreme_values/,
    );
  });

  it('serves counters above 2^63 and shard ids above 2^31, recorded exactly by the collector', async () => {
    const sim = await startSimServer({ seed: 9, clock: 'manual', scenario: parseScenario(SCENARIO, 'widths.yaml') });
    try {
      sim.world.advanceBy(600); // ten simulated minutes: the counters grow
      const db = join(dir, 'h.db');
      const collect = memoryIo({ cwd: dir });
      const code = await main(
        ['--db', db, 'collect', '--base-url', sim.baseUrl, '--once', '--schedule', 'shadow=off'],
        collect,
      );
      expect(collect.err()).not.toContain('FAILED');
      expect(code).toBe(0);
      const io = memoryIo({ cwd: dir });
      const filter =
        'total_request_statistics.request_count > 9223372036854775807 AND shard_id > 2147483647 AND source.port > 65535';
      expect(
        await main(['--db', db, 'query', 'connections', '--dialect', 'server', '--filter', filter, '-o', 'json'], io),
      ).toBe(0);
      const rows = (parseJsonLossless(io.out()) as { rows: Record<string, Record<string, JsonValue>>[] }).rows;
      const served = sim.world.listKafkaConnections({ filter: '', orderBy: '', pageSize: 0 });
      if (!('connections' in served)) throw new Error('the simulator refused the call');
      expect(rows.length).toBe(served.connections.length);
      for (const row of rows) {
        const counter = BigInt(row.totalRequestStatistics!.requestCount as string);
        expect(counter > 2n ** 63n && counter < 2n ** 64n).toBe(true);
      }
      const max = served.connections.reduce(
        (m, c) => (c.totalRequestStatistics.produceBytes > m ? c.totalRequestStatistics.produceBytes : m),
        0n,
      );
      expect(rows.some((r) => r.totalRequestStatistics!.produceBytes === max.toString())).toBe(true);
    } finally {
      await sim.close();
    }
  });
});
