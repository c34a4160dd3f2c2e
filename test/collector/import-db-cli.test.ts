import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeAnswer } from '../../src/api/wire/answers.ts';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { createWorld } from '../../src/sim/index.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { runCli } from './helpers/run-cli.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'flightrec-import-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const world = createWorld({ seed: 21, connections: 25 });
const file = (name: string, body: string | Buffer): string => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};

function read<T>(db: string, fn: (r: ReturnType<typeof createHistoryReader>) => T): T {
  const store = openDatabase(db, { readonly: true });
  try {
    return fn(createHistoryReader(store));
  } finally {
    store.close();
  }
}

describe('flightrec import', () => {
  it('stores a saved answer as a poll at --at, reconstructed field for field', async () => {
    const db = join(dir, 'a.db');
    const value = world.answer('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 });
    const body = encodeAnswer('ListKafkaConnections', value as never);
    const path = file('conns.json', body);
    const io = memoryIo({ cwd: dir });
    expect(
      await runCli(['--db', db, 'import', '--op', 'ListKafkaConnections', '--at', '2026-01-01T00:10:00Z', path], io),
    ).toBe(0);
    expect(io.err()).toMatch(/import .*conns\.json: stored as poll 1/);
    read(db, (r) => {
      const [poll] = r.polls({});
      expect(poll).toMatchObject({
        operation: 'ListKafkaConnections',
        outcome: 'ok',
        cluster: 'default',
        startTime: 1_767_226_200_000_000_000n,
      });
      expect(r.reconstructAnswer(poll!.id).answer).toStrictEqual(value);
    });
  });

  it('uses the file modification time by default, and the request for the target', async () => {
    const db = join(dir, 'b.db');
    const value = world.answer('GetShadowTopic', { name: 'orders', shadowLinkName: 'dr-primary' });
    const path = file('topic.json', encodeAnswer('GetShadowTopic', value as never));
    utimesSync(path, new Date('2025-06-01T12:00:00Z'), new Date('2025-06-01T12:00:00Z'));
    const io = memoryIo({ cwd: dir });
    const code = await runCli(
      [
        '--db',
        db,
        '--cluster',
        'prod',
        'import',
        '--op',
        'GetShadowTopic',
        '--request',
        '{"name":"orders","shadowLinkName":"dr-primary"}',
        path,
      ],
      io,
    );
    expect(code).toBe(0);
    read(db, (r) => {
      const [poll] = r.polls({});
      expect(poll).toMatchObject({
        cluster: 'prod',
        target: 'dr-primary/orders',
        startTime: 1_748_779_200_000_000_000n,
      });
    });
  });

  it('records a file that does not parse or validate as a failed poll, reports it, and exits 1', async () => {
    const db = join(dir, 'c.db');
    const good = file('good.json', encodeAnswer('GetUpgradeStatus', world.answer('GetUpgradeStatus', {}) as never));
    const broken = file('broken.json', '{"activeVersion": "1", "members": [');
    const wrong = file('wrong.json', '{"activeVersion": true}');
    const html = file('proxy.html', '<html><body>502 Bad Gateway</body></html>');
    const io = memoryIo({ cwd: dir });
    const code = await runCli(
      [
        '--db',
        db,
        'import',
        '--op',
        'GetUpgradeStatus',
        '--at',
        'now',
        good,
        broken,
        wrong,
        html,
        join(dir, 'missing.json'),
      ],
      io,
    );
    expect(code).toBe(1);
    expect(io.err()).toMatch(/broken\.json: answer is not valid JSON.*\(stored as failed poll 2\)/);
    expect(io.err()).toMatch(
      /wrong\.json: answer does not match the GetUpgradeStatus schema: activeVersion: .*\(stored as failed poll 3\)/,
    );
    expect(io.err()).toMatch(/proxy\.html: answer is not valid JSON/);
    expect(io.err()).toMatch(/missing\.json: cannot read: no such file/);
    read(db, (r) => {
      const polls = r.polls({});
      expect(polls.map((p) => p.outcome)).toEqual(['ok', 'internal', 'internal', 'internal']);
      const wrongPoll = r.reconstructAnswer(polls[2]!.id);
      expect(wrongPoll.failure).toMatchObject({ kind: 'invalid_answer', path: 'activeVersion' });
      expect(Buffer.from(wrongPoll.raw!).toString()).toBe('{"activeVersion": true}');
    });
  });

  it('stores a saved Connect error body as a failed poll with its code', async () => {
    const db = join(dir, 'd.db');
    const path = file('err.json', '{"code":"failed_precondition","message":"no valid license"}');
    const io = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'import', '--op', 'ListKafkaConnections', '--at', '-1h', path], io)).toBe(0);
    read(db, (r) =>
      expect(r.polls({})[0]).toMatchObject({ outcome: 'failed_precondition', message: 'no valid license' }),
    );
  });

  it('refuses an unknown operation, a bad time and a bad request with exit 2', async () => {
    const db = join(dir, 'e.db');
    const path = file('x.json', '{}');
    for (const [args, message] of [
      [['--op', 'ListTopics', path], /--op: unknown operation "ListTopics"/],
      [['--op', 'GetUpgradeStatus', '--at', 'yesterday', path], /--at: invalid time "yesterday"/],
      [['--op', 'GetShadowLink', '--request', '{"nam":"x"}', path], /--request: unknown field "nam"/],
    ] as const) {
      const io = memoryIo({ cwd: dir });
      expect(await runCli(['--db', db, 'import', ...args], io)).toBe(2);
      expect(io.err()).toMatch(message);
    }
  });
});

describe('flightrec db', () => {
  it('shows stats, prunes old polls and vacuums', async () => {
    const db = join(dir, 'f.db');
    const conns = file(
      'c1.json',
      encodeAnswer(
        'ListKafkaConnections',
        world.answer('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 }) as never,
      ),
    );
    expect(
      await runCli(
        ['--db', db, 'import', '--op', 'ListKafkaConnections', '--at', '2026-01-01T00:00:00Z', conns],
        memoryIo({ cwd: dir }),
      ),
    ).toBe(0);
    expect(
      await runCli(
        ['--db', db, 'import', '--op', 'ListKafkaConnections', '--at', '2026-01-05T00:00:00Z', conns],
        memoryIo({ cwd: dir }),
      ),
    ).toBe(0);

    const text = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'stats'], text)).toBe(0);
    expect(text.out()).toMatch(/polls\s+2 \(0 failed\)/);
    expect(text.out()).toMatch(/connections\s+25\s+50\s+50\s+[0-9.]+ KiB\s+\d+\.\d$/m);

    const json = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, '-o', 'json', 'db', 'stats'], json)).toBe(0);
    expect(JSON.parse(json.out())).toMatchObject({
      polls: 2,
      entities: { connections: 25 },
      samples: { connections: 50 },
    });

    const prune = memoryIo({ cwd: dir, now: () => Date.parse('2026-01-06T00:00:00Z') });
    expect(await runCli(['--db', db, 'db', 'prune', '--older-than', '3d'], prune)).toBe(0);
    expect(prune.out()).toMatch(/pruned polls before 2026-01-03T00:00:00Z: 1 polls/);
    read(db, (r) => expect(r.polls({})).toHaveLength(1));

    const vacuum = memoryIo({ cwd: dir });
    expect(await runCli(['--db', db, 'db', 'vacuum'], vacuum)).toBe(0);
    expect(vacuum.out()).toMatch(/vacuumed .*f\.db: .* -> /);
  });

  it('says so when there is no database, and refuses a bad cut-off', async () => {
    const io = memoryIo({ cwd: dir });
    expect(await runCli(['--db', join(dir, 'none.db'), 'db', 'stats'], io)).toBe(1);
    expect(io.err()).toMatch(/no history database at .*none\.db/);
    const io2 = memoryIo({ cwd: dir });
    expect(await runCli(['--db', join(dir, 'none.db'), 'db', 'prune', '--older-than', 'ages'], io2)).toBe(2);
  });
});
