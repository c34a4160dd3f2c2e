/**
 * Never at the recorder's expense, in real time: the collector records the simulated cluster
 * (its real clock; a broker goes down after two seconds) every two seconds for a few seconds while
 * its Alertmanager and its webhook accept connections and never answer. Every round still
 * starts on its second within one jitter, no firing is skipped, every poll is stored, /readyz
 * says ready, and /metrics shows what waits and what was given up.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { parseScenario, startSimServer } from '../../src/sim/index.ts';
import { tempDir } from '../fixtures/timeline/run-cli.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { startLoopbackServer } from '../helpers/loopback-server.ts';

const JITTER_MS = 300;
/** timer and scheduling slack of a busy machine, on top of the jitter */
const SLACK_MS = 500;
const RUN_MS = 5_500;

const tmp = tempDir();
afterAll(() => tmp.remove());

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('a receiver that never answers', () => {
  it('delays no poll and loses no recorded data', async () => {
    const scenario = parseScenario(
      'name: outage\ndescription: a broker goes down\nduration: 1m\nevents:\n  - at: 2s\n    kind: broker_down\n    broker: 2\n',
      'outage',
    );
    const sim = await startSimServer({ host: '127.0.0.1', port: 0, scenario });
    // accept, read the request, never answer
    const am = await startLoopbackServer(() => undefined);
    const hook = await startLoopbackServer(() => undefined);
    const stop = new AbortController();
    const io = memoryIo({ signal: stop.signal });
    const db = tmp.path('rec.db');
    let ready: { status: number; body: string } | undefined;
    let metrics: string | undefined;
    try {
      const running = main(
        [
          '--db',
          db,
          'collect',
          '--base-url',
          sim.baseUrl,
          '--schedule',
          'connections=*/2 * * * * *',
          '--schedule',
          'upgrade=*/2 * * * * *',
          '--schedule',
          'iceberg=*/2 * * * * *',
          '--jitter',
          `${JITTER_MS}ms`,
          '--shutdown-timeout',
          '2s',
          '--listen',
          '0',
          '--alertmanager',
          am.url,
          '--webhook',
          `${hook.url}/hook`,
        ],
        io,
      );
      // from the first round on (starting the command from source takes a while on a busy machine)
      for (let i = 0; i < 600 && !/ default \w+ ok /.test(io.err()); i++) await sleep(50);
      await sleep(RUN_MS);
      const url = /serving \/metrics, \/healthz and \/readyz at (\S+)/.exec(io.err())?.[1];
      const r = await fetch(`${url}/readyz`);
      ready = { status: r.status, body: await r.text() };
      metrics = await (await fetch(`${url}/metrics`)).text();
      stop.abort();
      expect(await running, io.err().slice(-2000)).toBe(0);
    } finally {
      stop.abort();
      await sim.close();
      await am.close();
      await hook.close();
    }
    expect(io.err()).not.toContain('this firing is skipped');

    // the receivers were reached (the alerts were on their way) and never answered
    expect(am.requests.length + hook.requests.length).toBeGreaterThan(0);
    expect(ready?.status, ready?.body).toBe(200);
    expect(metrics).toMatch(/flightrec_alerts_queued\{receiver="webhook:127\.0\.0\.1:\d+"\} [1-9]/);
    expect(metrics).toMatch(/flightrec_alerts_sent_total\{receiver="alertmanager:127\.0\.0\.1:\d+"\} 0/);

    const store = openDatabase(db, { readonly: true });
    const polls = createHistoryReader(store).polls({});
    store.close();
    expect(polls.filter((p) => p.outcome !== 'ok').map((p) => `${p.operation} ${p.outcome} ${p.message}`)).toEqual([]);
    // every round fired on its second, within one jitter (the round's time, before it waits for
    // the cluster's call queue); no firing was skipped
    for (const op of ['ListKafkaConnections', 'GetUpgradeStatus', 'GetIcebergStatus']) {
      const fired = [
        ...new Set(polls.filter((p) => p.operation === op).map((p) => Number(p.scheduledTime / 1_000_000n))),
      ];
      const seconds = fired.map((ms) => Math.floor(ms / 1000));
      expect(seconds.length, op).toBeGreaterThanOrEqual(3);
      expect(
        seconds.map((s) => s - seconds[0]!),
        op,
      ).toEqual(seconds.map((_, i) => 2 * i));
      expect(
        fired.filter((ms) => ms % 1000 > JITTER_MS + SLACK_MS),
        op,
      ).toEqual([]);
    }
    // the collector said every poll was written: nothing held, nothing lost
    expect(io.err()).not.toMatch(/could not be written|lost/);
  }, 30_000);
});
