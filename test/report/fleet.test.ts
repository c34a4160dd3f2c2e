/** The fleet lines' order (worst first) and their renderings, on hand-made lines. */
import { describe, expect, it } from 'vitest';
import { compareFleetLines, worstOpenSeverity, type FleetLine } from '../../src/report/fleet.ts';
import { fleetCells, fleetToJson, icebergText, renderFleetCsv } from '../../src/report/render/fleet.ts';

const line = (cluster: string, error: number, warn: number, info = 0): FleetLine => ({
  cluster,
  lastPoll: undefined,
  age: undefined,
  openConnections: undefined,
  worstShadowLag: undefined,
  worstShadowLagPartition: undefined,
  iceberg: { state: 'unknown', detail: '', topics: 0, maxCommitLag: undefined },
  upgrade: undefined,
  openEvents: { error, warn, info },
});

describe('fleet lines', () => {
  it('sorts clusters with open errors first, then by open events, then by name', () => {
    const lines = [
      line('a', 0, 0),
      line('b', 0, 5),
      line('c', 1, 0),
      line('d', 2, 0),
      line('e', 0, 5, 1),
      line('f', 1, 3),
    ];
    expect(lines.sort(compareFleetLines).map((l) => l.cluster)).toEqual(['d', 'f', 'c', 'e', 'b', 'a']);
  });

  it('names the worst open severity', () => {
    expect(worstOpenSeverity({ error: 0, warn: 0, info: 0 })).toBeUndefined();
    expect(worstOpenSeverity({ error: 0, warn: 2, info: 7 })).toBe('warn');
    expect(worstOpenSeverity({ error: 1, warn: 0, info: 0 })).toBe('error');
  });

  it('shows what was never observed as - (null in JSON), and the Iceberg state in a few words', () => {
    const l = line('x', 0, 0);
    expect(fleetCells(l)).toEqual(['x', '-', '-', '-', '-', '-', '-', '0', '0', '0']);
    expect(fleetToJson({ at: 0n, window: 60_000_000_000n, lines: [l] })).toMatchObject({
      window: '1m00s',
      clusters: [{ cluster: 'x', lastPoll: null, openConnections: null, worstShadowLag: null, upgrade: null }],
    });
    expect(icebergText({ state: 'ok', detail: '', topics: 1, maxCommitLag: 12_345n })).toBe('ok 1 topic, lag 12.3k');
    expect(icebergText({ state: 'unreachable', detail: 'io_error', topics: 0, maxCommitLag: undefined })).toBe(
      'unreachable io_error',
    );
    expect(icebergText({ state: 'poll-failed', detail: 'unavailable', topics: 0, maxCommitLag: undefined })).toBe(
      'poll-failed unavailable',
    );
  });

  it('keeps CSV cells safe: a formula-like cluster name is defused', () => {
    const csv = renderFleetCsv({ at: 0n, window: 1n, lines: [line('=cmd|x', 1, 0)] });
    expect(csv.split('\r\n')[1]).toMatch(/^'=cmd\|x,/);
  });
});
