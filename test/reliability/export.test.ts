/**
 * Item 7 of the reliability issue: `flightrec export --redact`. A recorded history (connections
 * with principals, client, group and transactional ids and source addresses; shadow links; an
 * error message that names a principal, a client and IPv4/IPv6 addresses) is exported as one
 * JSON bundle. No original value survives in the redacted bundle; each value maps to one token
 * and each token to one value across all polls (so analysis still works); the mapping is in a
 * separate 0600 file. The plain bundle reconstructs every answer exactly.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonLossless, stringifyJson, type JsonValue } from '../../src/api/codec/lossless-json.ts';
import type { OperationName } from '../../src/api/schema/operations.ts';
import { encodeAnswerTree } from '../../src/api/wire/answers.ts';
import { createHistoryReader, openDatabase } from '../../src/db/index.ts';
import { createWorld, parseScenario } from '../../src/sim/index.ts';
import { runCli } from './support/cli.ts';
import { connectError } from './support/mutations.ts';
import { recordThroughProxy } from './support/record.ts';

/** Keys whose values are personal data (what the test looks for, independently of the code under test). */
const SENSITIVE = new Set([
  'ipAddress',
  'userPrincipal',
  'principal',
  'username',
  'clientId',
  'transactionalId',
  'groupId',
  'groupInstanceId',
  'groupMemberId',
]);
const IP =
  /(?<![0-9.])(?:[0-9]{1,3}\.){3}[0-9]{1,3}(?![0-9])|(?<![\w:])(?:[0-9a-f]{1,4}:){1,7}:?[0-9a-f]{0,4}(?![\w:])/gi;
const SCENARIO =
  'name: export\ndescription: churn and a storm\nevents:\n  - { at: 30s, kind: connection_storm, rate: 2, duration: 60s }\n';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-export-'));
const dbPath = join(dir, 'history.db');
const red = join(dir, 'red.json');
const plain = join(dir, 'plain.json');
let named: { principal: string; client: string };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const world = createWorld({ seed: 7, connections: 120, scenario: parseScenario(SCENARIO, 'export') });
  const first = (
    world.answer('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 0 }) as {
      connections: { clientId: string; authenticationInfo: { userPrincipal: string } }[];
    }
  ).connections;
  const c = first.find((x) => x.authenticationInfo.userPrincipal !== '' && x.clientId !== '')!;
  named = { principal: c.authenticationInfo.userPrincipal, client: c.clientId };
  const message = `principal ${named.principal} (client ${named.client}) from 10.20.30.40 and fe80::1 / 2001:db8::42 is not allowed`;
  await recordThroughProxy({
    dbPath,
    scenario: SCENARIO,
    seconds: 180,
    rules: [
      {
        name: 'names in an error',
        from: 60,
        until: 90,
        ops: ['GetUpgradeStatus'],
        mutate: connectError('permission_denied', 403, message),
      },
    ],
  });
  for (const [args, out] of [
    [['--redact'], red],
    [[], plain],
  ] as const) {
    const run = await runCli(['--db', dbPath, 'export', ...args, '--out', out]);
    expect(run.code, run.err).toBe(0);
  }
}, 60_000);

/** Every string of a tree with the key it sits under. */
function strings(v: JsonValue | undefined, key: string, visit: (s: string, key: string) => void): void {
  if (typeof v === 'string') visit(v, key);
  else if (Array.isArray(v)) for (const e of v) strings(e, key, visit);
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) strings(x, k, visit);
}

/** The original personal values, read from the store (not from the export). */
function originals(): Set<string> {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    const reader = createHistoryReader(db);
    const out = new Set<string>();
    for (const p of reader.polls({})) {
      const r = reader.reconstructAnswer(p.id);
      const tree: JsonValue = {
        answer: r.answer === undefined ? null : encodeAnswerTree(p.operation as OperationName, r.answer as never),
        message: r.failure?.message ?? '',
      };
      strings(tree, '', (s, key) => {
        if (SENSITIVE.has(key) && s !== '') out.add(s);
        for (const m of s.matchAll(IP)) if (m[0].includes('.') || m[0].includes('::')) out.add(m[0]);
      });
    }
    return out;
  } finally {
    db.close();
  }
}

interface Bundle {
  format: string;
  redacted: boolean;
  pollCount: number;
  polls: {
    poll: { id: string; operation: string; startTime: string };
    answer?: JsonValue;
    failure?: { message: string };
    raw?: string;
    rawOmitted?: string;
  }[];
}
const load = (p: string): Bundle => parseJsonLossless(readFileSync(p)) as unknown as Bundle;

describe('export --redact', () => {
  it('writes one JSON bundle and a separate mapping file, both 0600', () => {
    for (const p of [red, `${red}.mapping.json`, plain]) expect((statSync(p).mode & 0o777).toString(8), p).toBe('600');
    expect(existsSync(`${plain}.mapping.json`)).toBe(false);
    const b = load(red);
    expect(b.format).toBe('flightrec-export');
    expect(b.redacted).toBe(true);
    expect(b.polls.length).toBe(b.pollCount);
    expect(b.polls.length).toBeGreaterThan(30);
    expect(b.polls.filter((p) => p.failure !== undefined).length).toBeGreaterThan(0);
  });

  it('no original value survives anywhere in the redacted bundle', () => {
    const values = originals();
    expect(values.size, 'personal values in the history').toBeGreaterThan(100);
    for (const v of [named.principal, named.client, '10.20.30.40', 'fe80::1', '2001:db8::42'])
      expect(values.has(v), v).toBe(true);
    const bytes = readFileSync(red, 'utf8');
    // resource names (topics, links) are not personal data and stay; a value spelled like one
    // (the consumer group `payments` and the topic `payments`) may appear only as that name
    const identifiers = new Set<string>();
    const bundle = load(red);
    const blanked = JSON.parse(stringifyJson(bundle as unknown as JsonValue), (k, v: unknown) => {
      if (
        typeof v === 'string' &&
        ['name', 'topic', 'target', 'shadowLinkName', 'topicName', 'sourceTopicName', 'uid'].includes(k)
      ) {
        identifiers.add(v);
        return '';
      }
      return v;
    }) as unknown;
    const text = JSON.stringify(blanked);
    const survivors = [...values].filter(
      (v) => text.includes(v) || (![...identifiers].some((id) => id.includes(v)) && bytes.includes(v)),
    );
    expect(survivors).toEqual([]);
    expect(bytes.includes(named.principal)).toBe(false);
  });

  it('maps each value to one token and each token to one value, in every poll (analysis still works)', () => {
    const a = load(plain);
    const b = load(red);
    expect(b.polls.length).toBe(a.polls.length);
    const forward = new Map<string, string>();
    const backward = new Map<string, string>();
    const clash: string[] = [];
    const pair = (x: JsonValue | undefined, y: JsonValue | undefined, key: string): void => {
      if (typeof x === 'string' && typeof y === 'string') {
        if (!SENSITIVE.has(key) || x === '') return;
        if ((forward.get(x) ?? y) !== y || (backward.get(y) ?? x) !== x) clash.push(`${key}: ${x} -> ${y}`);
        forward.set(x, y);
        backward.set(y, x);
      } else if (Array.isArray(x) && Array.isArray(y)) x.forEach((e, i) => pair(e, y[i], key));
      else if (
        x !== null &&
        y !== null &&
        typeof x === 'object' &&
        typeof y === 'object' &&
        !Array.isArray(x) &&
        !Array.isArray(y)
      ) {
        const [xo, yo] = [x as Record<string, JsonValue>, y as Record<string, JsonValue>];
        for (const k of Object.keys(xo)) pair(xo[k], yo[k], k);
      }
    };
    a.polls.forEach((p, i) => pair(p.answer, b.polls[i]!.answer, ''));
    expect(clash).toEqual([]);
    expect(forward.size).toBeGreaterThan(100);
    for (const token of backward.keys())
      expect(token).toMatch(/^(ip|principal|client|txn|group|group-instance|group-member)-[0-9]+$/);
    const mapping = JSON.parse(readFileSync(`${red}.mapping.json`, 'utf8')) as {
      entries: { token: string; value: string }[];
    };
    const byToken = new Map(mapping.entries.map((e) => [e.token, e.value]));
    for (const [value, token] of forward) expect(byToken.get(token), token).toBe(value);
    // the error message names a principal, a client and addresses: all replaced, by the same tokens
    const denied = b.polls.find((p) => p.failure?.message.includes('is not allowed'))!;
    expect(denied.failure!.message).toContain(forward.get(named.principal)!);
    expect(denied.failure!.message).toMatch(/from ip-[0-9]+ and ip-[0-9]+ \/ ip-[0-9]+ is not allowed/);
    expect(b.polls.every((p) => p.raw === undefined)).toBe(true);
  });

  it('the plain bundle holds every answer exactly as reconstructed', () => {
    const a = load(plain);
    const db = openDatabase(dbPath, { readonly: true });
    try {
      const reader = createHistoryReader(db);
      for (const p of a.polls) {
        const r = reader.reconstructAnswer(BigInt(p.poll.id));
        if (r.answer === undefined) continue;
        expect(stringifyJson(p.answer!), `poll ${p.poll.id}`).toBe(
          stringifyJson(encodeAnswerTree(p.poll.operation as OperationName, r.answer as never)),
        );
      }
    } finally {
      db.close();
    }
  });

  it('exports a time range; refuses to overwrite, to mix --redact with stdout, and bad times', async () => {
    const ranged = join(dir, 'ranged.json');
    const run = await runCli([
      '--db',
      dbPath,
      'export',
      '--since',
      '2026-01-01T00:01:00Z',
      '--until',
      '2026-01-01T00:02:00Z',
      '--out',
      ranged,
    ]);
    expect(run.code, run.err).toBe(0);
    const times = load(ranged).polls.map((p) => p.poll.startTime);
    expect(times.length).toBeGreaterThan(5);
    expect(times.every((t) => t >= '2026-01-01T00:01:00' && t <= '2026-01-01T00:02:00.000000000Z')).toBe(true);
    writeFileSync(join(dir, 'taken.json'), 'mine');
    const taken = await runCli(['--db', dbPath, 'export', '--out', join(dir, 'taken.json')]);
    expect(taken.code).toBe(1);
    expect(readFileSync(join(dir, 'taken.json'), 'utf8')).toBe('mine');
    expect((await runCli(['--db', dbPath, 'export', '--redact', '--out', '-'])).code).toBe(2);
    expect((await runCli(['--db', dbPath, 'export', '--since', 'yesterday-ish'])).code).toBe(2);
    const stdout = await runCli(['--db', dbPath, 'export', '--out', '-', '--since', '2026-01-01T00:02:00Z']);
    expect(stdout.code).toBe(0);
    expect(load(ranged).format).toBe((JSON.parse(stdout.out) as Bundle).format);
  });
});
