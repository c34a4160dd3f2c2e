/**
 * `collect --webhook` end to end, in-process: the simulated incident recorded with live alerts on,
 * each event's last state as the webhook received it equals `timeline -o json` of the same
 * recording afterwards (kind, entity, start, end); and what cannot be used stops the command
 * before the database is created.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runFlightrec, tempDir } from '../fixtures/timeline/run-cli.ts';
import { answer, startLoopbackServer } from '../helpers/loopback-server.ts';
import { describeWithServer, freshPgTarget } from '../helpers/pg.ts';

const tmp = tempDir();
afterAll(() => tmp.remove());

interface Delivered {
  status: string;
  change: string;
  cluster: string;
  event: { kind: string; entity: string; start: string; end: string | null; severity: string };
}

/** Records the incident with a webhook into `db`; the webhook's last state of each event equals `timeline -o json`. */
async function deliversTheTimeline(db: string): Promise<void> {
  const hook = await startLoopbackServer((_r, res) => answer(res, 204, ''));
  try {
    const config = tmp.path(`alerts-${Math.random().toString(16).slice(2)}.yaml`);
    writeFileSync(config, 'alerts:\n  minSeverity: info\n');
    const run = await runFlightrec(
      [
        '--db',
        db,
        '--config',
        config,
        'collect',
        '--simulate',
        'incident',
        '--for',
        '6m',
        '--webhook',
        `${hook.url}/flightrec`,
        '--webhook-secret-env',
        'HOOK_KEY',
      ],
      { env: { HOOK_KEY: 'k-0123456789' } },
    );
    expect(run.code, run.err.slice(-2000)).toBe(0);
    expect(run.err).not.toContain('error');
    const delivered = hook.requests.map((r) => JSON.parse(r.body.toString()) as Delivered);
    expect(hook.requests.every((r) => String(r.headers['x-flightrec-signature']).startsWith('sha256='))).toBe(true);
    const last = new Map<string, Delivered['event']>();
    for (const d of delivered) last.set(`${d.event.kind} ${d.event.entity} ${d.event.start}`, d.event);
    const timeline = await runFlightrec(['--db', db, '-o', 'json', 'timeline']);
    const events = (JSON.parse(timeline.out) as { events: Delivered['event'][] }).events;
    const key = (e: Delivered['event']): string => `${e.kind} ${e.entity} ${e.start} ${e.end}`;
    expect(events.length).toBeGreaterThan(12);
    expect([...last.values()].map(key).sort()).toEqual(events.map(key).sort());
    // an event resolved while recording was sent firing first
    const broker = delivered.filter((d) => d.event.kind === 'connections.broker-empty');
    expect(broker.map((d) => [d.change, d.status])).toEqual([
      ['opened', 'firing'],
      ['ended', 'resolved'],
    ]);
  } finally {
    await hook.close();
  }
}

describe('collect --webhook', () => {
  it('delivers the events timeline computes afterwards, each in its last state', async () => {
    await deliversTheTimeline(tmp.path('live.db'));
  }, 60_000);

  it('a receiver that cannot be used is exit 2 before the database is created, without its URL', async () => {
    const db = tmp.path('never.db');
    const cases: [string[], RegExp][] = [
      [['--webhook', 'http://127.0.0.1:9/s3cr3t', '--webhook-secret-env', 'NOT_SET'], /NOT_SET/],
      [['--alertmanager', 'http://u:p@127.0.0.1:9093/s3cr3t'], /--alertmanager: must not contain credentials/],
    ];
    for (const [flags, message] of cases) {
      const run = await runFlightrec(['--db', db, 'collect', '--simulate', 'incident', '--for', '1m', ...flags]);
      expect(run.code, run.err).toBe(2);
      expect(run.err).toMatch(message);
      expect(run.err).not.toContain('s3cr3t');
      expect(existsSync(db)).toBe(false);
    }
  });
});

describeWithServer('collect --webhook on a PostgreSQL store', () => {
  it('delivers the events timeline computes afterwards (the polls written by the store thread, read by the worker)', async () => {
    const pg = await freshPgTarget({ migrated: true });
    try {
      await deliversTheTimeline(pg.target);
    } finally {
      await pg.drop();
    }
  }, 120_000);
});
