/**
 * Hostile bytes and unknown fields on the way out: `export --out -` writes C1 controls, bidi
 * overrides and isolates as JSON escapes (never raw), `filter check` prints its normalised
 * filter neutralised, `export --redact` tokenises the strings of unknown fields and HTTP
 * credentials (their values never reach the mapping), and an empty database file is called
 * empty, not "schema version 0".
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultMessage } from '../../src/api/wire/defaults.ts';
import { KafkaConnection } from '../../src/api/schema/connection.ts';
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { okRecord, tempDbPath, LIST_REQUEST } from '../db/fixtures.ts';
import { runCli } from './support/cli.ts';

const T0 = 1_767_225_600_000_000_000n;
/** Characters a terminal obeys that JSON.stringify leaves raw. */
const RAW_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u2028\u2029]/;
const HOSTILE = 'evil\u009b2J\u202egnp.exe\u2066x\u2069\u200f\u0085';
const CREDENTIAL = 'Basic YWRtaW46aHVudGVyMg==';

function recording(): string {
  const path = tempDbPath('hostile.db', 'file');
  const db = openDatabase(path);
  const writer = createHistoryWriter(db);
  const conn = {
    ...defaultMessage(KafkaConnection),
    uid: 'c-1',
    clientId: HOSTILE,
    $unknown: {
      echoedHeaders: { authorization: CREDENTIAL, forwardedFor: 'alice@example.com' },
      note: 'seen from host pluto',
    },
  };
  const answer = { connections: [conn], totalSize: 1n, $unknown: { proxy: 'squid at bastion-7' } };
  writer.writePoll(okRecord('ListKafkaConnections', answer, { at: T0, request: LIST_REQUEST }));
  writer.close();
  return path;
}

describe('raw control bytes never reach a terminal', () => {
  const db = recording();

  it('export --out - writes C1 and bidi controls as JSON escapes; the JSON means the same', async () => {
    const r = await runCli(['--db', db, 'export', '--out', '-']);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(RAW_UNSAFE);
    expect(r.out).toContain('\\u009b');
    expect(r.out).toContain('\\u202e');
    expect(r.out).toContain('\\u2066');
    const bundle = JSON.parse(r.out) as { polls: { answer: { connections: { clientId: string }[] } }[] };
    expect(bundle.polls[0]!.answer.connections[0]!.clientId).toBe(HOSTILE);
  });

  it('export to a file escapes them too', async () => {
    const out = `${db}.export.json`;
    const r = await runCli(['--db', db, 'export', '--out', out]);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).not.toMatch(RAW_UNSAFE);
  });

  it('filter check prints the normalised filter neutralised', async () => {
    const r = await runCli(['filter', 'check', `client_id = "${HOSTILE}"`]);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(RAW_UNSAFE);
    expect(r.out).toContain('\\x9b');
    expect(r.out).toContain('\\u202e');
  });
});

describe('export --redact', () => {
  it('tokenises the strings of unknown fields and credentials; the mapping never holds a credential', async () => {
    const db = recording();
    const out = `${db}.redacted.json`;
    const r = await runCli(['--db', db, 'export', '--redact', '--out', out]);
    expect(r.code).toBe(0);
    const text = readFileSync(out, 'utf8');
    for (const secret of ['YWRtaW46aHVudGVyMg', 'alice@example.com', 'pluto', 'squid at bastion-7'])
      expect(text).not.toContain(secret);
    const bundle = JSON.parse(text) as {
      polls: { answer: { proxy: string; connections: { echoedHeaders: { authorization: string } }[] } }[];
    };
    expect(bundle.polls[0]!.answer.proxy).toMatch(/^unknown-\d+$/);
    expect(bundle.polls[0]!.answer.connections[0]!.echoedHeaders.authorization).toMatch(/^secret-\d+$/);
    const mapping = readFileSync(`${out}.mapping.json`, 'utf8');
    expect(mapping).not.toContain('YWRtaW46aHVudGVyMg');
    expect(mapping).toContain('(a credential: not kept)');
  });
});

describe('an empty database file', () => {
  it('is called empty (0 bytes), not "schema version 0"', async () => {
    const path = tempDbPath('empty.db');
    writeFileSync(path, '');
    for (const argv of [
      ['query', 'polls'],
      ['db', 'stats'],
      ['export', '--out', '-'],
    ]) {
      const r = await runCli(['--db', path, ...argv]);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.err).toContain(`cannot open history database ${path}: the file is empty (0 bytes)`);
      expect(r.err).not.toMatch(/schema version 0/);
    }
  });
});
