/** The public API of src/filter and the `filter check` command. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { RESOURCE_NAMES } from '../../src/api/schema/index.ts';
import { registerFilterCheck } from '../../src/cli/commands/filter-check.ts';
import type { CliIo } from '../../src/cli/context.ts';
import { checkFilter, compileFilter, compileOrderBy, FilterError, listFieldPaths } from '../../src/filter/index.ts';
import { textOf } from '../helpers/memory-io.ts';

describe('compileFilter / checkFilter', () => {
  it('compiles once and matches decoded rows; the empty filter matches everything', () => {
    const f = compileFilter('state = KAFKA_CONNECTION_STATE_OPEN AND node_id = 1', {
      resource: 'connections',
      dialect: 'server',
    });
    expect(f.normalized).toBe('state = KAFKA_CONNECTION_STATE_OPEN AND node_id = 1');
    expect(f.matches({ state: 'KAFKA_CONNECTION_STATE_OPEN', nodeId: 1 })).toBe(true);
    expect(f.matches({ state: 'KAFKA_CONNECTION_STATE_OPEN', nodeId: 2 })).toBe(false);
    const all = compileFilter('', { resource: 'polls', dialect: 'extended' });
    expect(all.ast).toBeUndefined();
    expect(all.matches({})).toBe(true);
  });

  it('reads absent fields as their defaults (unset timestamps as the epoch, unset messages as defaults)', () => {
    const f = compileFilter('close_time < 2025-01-01T00:00:00Z AND authentication_info.user_principal = ""', {
      resource: 'connections',
      dialect: 'server',
    });
    expect(f.matches({})).toBe(true);
  });

  it('tolerates int64 values held as numbers or decimal strings', () => {
    const f = compileFilter('total_request_statistics.request_count = 5', {
      resource: 'connections',
      dialect: 'server',
    });
    for (const v of [5n, 5, '5']) expect(f.matches({ totalRequestStatistics: { requestCount: v } })).toBe(true);
  });

  it('reports errors without throwing from checkFilter, and with FilterError from compileFilter', () => {
    const r = checkFilter('node_id = x', { resource: 'connections', dialect: 'server' });
    expect(r.ok).toBe(false);
    expect(() => compileFilter('node_id = x', { resource: 'connections', dialect: 'server' })).toThrow(FilterError);
  });

  it('returns warnings for enum names that match nothing', () => {
    const r = checkFilter('state = KAFKA_CONNECTION_STATE_OPN', { resource: 'connections', dialect: 'server' });
    expect(r.ok && r.warnings.map((w) => [w.start, w.end])).toEqual([[8, 34]]);
  });
});

describe('compileOrderBy', () => {
  const rows = [
    { uid: 'b', nodeId: 1 },
    { uid: 'a', nodeId: 1 },
    { uid: 'c', nodeId: 0 },
  ];
  it('breaks ties by the resource key unless told not to', () => {
    const withTie = compileOrderBy('node_id desc', { resource: 'connections', dialect: 'server' });
    expect([...rows].sort(withTie.compare).map((r) => r.uid)).toEqual(['a', 'b', 'c']);
    const without = compileOrderBy('node_id desc', { resource: 'connections', dialect: 'server', tieBreak: false });
    expect(without.compare(rows[0] as object, rows[1] as object)).toBe(0);
    expect(
      compileOrderBy('', { resource: 'connections', dialect: 'server', tieBreak: false }).compare(
        rows[0] as object,
        rows[2] as object,
      ),
    ).toBe(0);
  });
});

describe('listFieldPaths', () => {
  it('lists every path of every resource with its type, marking what the cluster accepts', () => {
    for (const r of RESOURCE_NAMES) expect(listFieldPaths(r).length).toBeGreaterThan(0);
    const paths = listFieldPaths('connections');
    expect(paths).toContainEqual({ path: 'node_id', type: 'int32', doc: 'broker node id', server: true });
    expect(paths).toContainEqual(
      expect.objectContaining({ path: 'state', type: 'enum KafkaConnectionState', server: true }),
    );
    expect(paths).toContainEqual(
      expect.objectContaining({ path: 'api_versions', type: 'map<int32, int32>', server: false }),
    );
    expect(paths).toContainEqual(
      expect.objectContaining({
        path: 'in_flight_requests.sampled_in_flight_requests.api_key',
        type: 'int32',
        server: false,
      }),
    );
    expect(paths.find((p) => p.path === 'authentication_info')?.server).toBe(false);
  });
  it('accepts every listed server path in a server filter', () => {
    for (const r of RESOURCE_NAMES) {
      for (const p of listFieldPaths(r).filter((x) => x.server)) {
        const lit =
          p.type === 'string'
            ? '""'
            : p.type === 'bool'
              ? 'true'
              : p.type.startsWith('enum')
                ? 'X'
                : p.type === 'duration'
                  ? '0s'
                  : p.type === 'timestamp'
                    ? '1970-01-01T00:00:00Z'
                    : '0';
        const res = checkFilter(`${p.path} = ${lit}`, { resource: r, dialect: 'server' });
        expect(res.ok, `${r}: ${p.path}`).toBe(true);
      }
    }
  });
});

function fakeIo(): { io: CliIo; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (s: string | Uint8Array) => (out += textOf(s)) },
    stderr: { write: (s: string | Uint8Array) => (err += textOf(s)) },
    env: {},
    cwd: '/',
    now: () => 0,
    signal: new AbortController().signal,
  };
  return { io, out: () => out, err: () => err };
}

async function runCli(args: string[]): Promise<{ code: number | undefined; out: string; err: string }> {
  const { io, out, err } = fakeIo();
  let code: number | undefined;
  const program = new Command('flightrec')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  registerFilterCheck(program, io, (c) => (code = c));
  await program.parseAsync(['filter', 'check', ...args], { from: 'user' });
  return { code, out: out(), err: err() };
}

describe('flightrec filter check', () => {
  it('prints the normalised filter and exits 0', async () => {
    const r = await runCli(['node_id=1 OR state = OPEN']);
    expect(r).toEqual({ code: 0, out: 'node_id = 1 OR state = KAFKA_CONNECTION_STATE_OPEN\n', err: '' });
  });

  it('honours --dialect and --resource', async () => {
    const r = await runCli(['--dialect', 'server', '--resource', 'polls', 'duration > 1.5s']);
    expect(r).toEqual({ code: 0, out: 'duration > 1500ms\n', err: '' });
  });

  it('prints the error with a caret and exits 2', async () => {
    const r = await runCli(['--dialect', 'server', 'node_id = 1 OR node_id = 2']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      // every error of the command line starts with flightrec:, the caret display included
      'flightrec: OR is not accepted by the cluster; use the extended dialect locally\n  node_id = 1 OR node_id = 2\n              ^^\n  hint: run one query per alternative, or use --dialect extended\n',
    );
  });

  it('prints warnings to stderr and still exits 0', async () => {
    const r = await runCli(['--dialect', 'server', 'state = OPEN']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('state = OPEN\n');
    expect(r.err).toContain('warning: "OPEN" is not a value of KafkaConnectionState');
  });

  it('rejects an unknown dialect or resource with exit 2', async () => {
    expect((await runCli(['--dialect', 'sql', 'x = 1'])).code).toBe(2);
    const r = await runCli(['--resource', 'brokers', 'x = 1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^flightrec: --resource: unknown resource "brokers"/);
  });
});
