/**
 * The collector's long-lived signals keep one listener each, however many rounds wait on them:
 * a fleet on 10 s schedules (every schedule of every cluster firing on the same second, each
 * with a jitter sleep, calls waiting in each cluster's queue, one in flight per cluster) raises
 * no MaxListenersExceededWarning, and the count stays bounded over many rounds.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { onAbort, waitersOf } from '../../src/collector/abort-waiters.ts';
import { Collector, defaultCluster, defaultCollectorConfig } from '../../src/collector/index.ts';
import { realSleep } from '../../src/collector/retry.ts';
import { createCallQueue } from '../../src/collector/call-queue.ts';
import { fakeCron } from '../helpers/fake-cron.ts';
import { fakeClient, memoryWriter, ok } from './helpers/fakes.ts';

const UPGRADE = {
  activeVersion: 1n,
  autoFinalizationEnabled: false,
  members: [],
  state: 'FINALIZATION_STATE_FINALIZED',
  versionAfterFinalization: 1n,
};

const warnings: Error[] = [];
const onWarning = (w: Error): void => void warnings.push(w);
process.on('warning', onWarning);
afterEach(() => {
  warnings.length = 0;
});

describe('waiters on one signal', () => {
  it('hold one listener on it, wake on abort, and leave when done', async () => {
    const ctl = new AbortController();
    const sleeps = Array.from({ length: 50 }, (_, i) => realSleep(i < 25 ? 1 : 60_000, ctl.signal));
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(1);
    expect(waitersOf(ctl.signal)).toBe(50);
    expect(await Promise.all(sleeps.slice(0, 25))).toEqual(Array(25).fill(true));
    expect(waitersOf(ctl.signal)).toBe(25);
    ctl.abort();
    expect(await Promise.all(sleeps.slice(25))).toEqual(Array(25).fill(false));
    expect(waitersOf(ctl.signal)).toBe(0);
    // a waiter added after the abort runs at once
    let ran = false;
    onAbort(ctl.signal, () => (ran = true));
    expect(ran).toBe(true);
  });

  it('in a call queue: calls waiting on a signal hold one listener, and leave when they start', async () => {
    const ctl = new AbortController();
    const queue = createCallQueue();
    const done = Array.from({ length: 30 }, () => queue.run(() => new Promise((r) => setTimeout(r, 1)), ctl.signal));
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(1);
    await Promise.all(done);
    expect(waitersOf(ctl.signal)).toBe(0);
  });
});

describe('a fleet on 10 s schedules', () => {
  it('keeps one listener on each signal of the collector over 20 rounds of 12 clusters, and no warning', async () => {
    const clusters = Array.from({ length: 12 }, (_, i) => ({
      ...defaultCluster(`c${i}`, 'http://127.0.0.1:1'),
      shadowLinks: [{ name: 'dr', topics: ['a', 'b'] }],
      schedules: {
        ListKafkaConnections: '*/10 * * * * *',
        GetShadowLink: '*/10 * * * * *',
        ListShadowTopics: '*/10 * * * * *',
        GetShadowTopic: '*/10 * * * * *',
        GetUpgradeStatus: '*/10 * * * * *',
        GetIcebergStatus: '*/10 * * * * *',
      },
    }));
    const cron = fakeCron();
    const watched: { stopping?: AbortSignal } = {};
    let most = 0;
    let calls = 0;
    const client = (): ReturnType<typeof fakeClient> =>
      fakeClient((op, _request, _n, signal) => {
        calls++;
        // seen from inside a call: the listeners on the collector's stop signal right now
        if (watched.stopping !== undefined) most = Math.max(most, getEventListeners(watched.stopping, 'abort').length);
        expect(signal?.aborted).toBe(false);
        return op === 'GetUpgradeStatus'
          ? ok(UPGRADE)
          : op === 'ListKafkaConnections'
            ? ok({ connections: [], totalSize: 0n })
            : ok({});
      });
    const c = new Collector({
      config: { ...defaultCollectorConfig(clusters), jitterMs: 20 },
      writer: memoryWriter(),
      env: {},
      now: cron.now,
      clientFactory: client,
      createTask: cron.createTask,
    });
    watched.stopping = c.stopping;
    c.start();
    for (let round = 0; round < 20; round++) await cron.advance(10_000);
    // every schedule of every cluster, every 10 s: 12 clusters x 7 calls x 20 rounds
    expect(calls).toBe(12 * 7 * 20);
    await c.shutdown();
    cron.dispose();
    await new Promise((r) => setImmediate(r));
    expect(most).toBeLessThanOrEqual(3);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  }, 60_000);
});
