/** The number paths of the unit formatters against exact bigint references, at every scale and at the 2^53 edge. */
import { describe, expect, it } from 'vitest';
import { formatHumanDuration } from '../../src/api/codec/duration.ts';
import { tableView } from '../../src/report/columns/index.ts';
import { formatAge, formatAgeShort, formatDuration, formatSpan } from '../../src/report/format-units.ts';

/** formatSpan as it was written on bigints only (the reference the number path must match). */
function spanReference(nanos: bigint): string {
  const s = (nanos < 0n ? -nanos : nanos) / 1_000_000_000n;
  const two = (big: bigint, bigUnit: string, small: bigint, smallUnit: string): string =>
    small === 0n ? `${big}${bigUnit}` : `${big}${bigUnit}${small}${smallUnit}`;
  if (s < 60n) return `${s}s`;
  if (s < 3600n) return two(s / 60n, 'm', s % 60n, 's');
  if (s < 86_400n) return two(s / 3600n, 'h', (s % 3600n) / 60n, 'm');
  return two(s / 86_400n, 'd', (s % 86_400n) / 3600n, 'h');
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INT64_MAX = 9_223_372_036_854_775_807n;

/** Values at each unit boundary (and one below and above), at 2^53 and near int64's ends, both signs. */
function edgeValues(): bigint[] {
  const units = [1n, 1_000n, 1_000_000n, 1_000_000_000n, 10_000_000_000n, 60_000_000_000n];
  units.push(3_600_000_000_000n, 86_400_000_000_000n, 8_640_000_000_000_000n);
  const out = [0n, SAFE - 1n, SAFE, SAFE + 1n, SAFE + 2n, SAFE * 3n, INT64_MAX, INT64_MAX - 999_999_999n];
  for (const u of units) for (const k of [1n, 9n, 10n, 59n, 60n, 99n, 100n]) out.push(u * k - 1n, u * k, u * k + 1n);
  return [...out, ...out.map((v) => -v), -INT64_MAX - 1n];
}

/** Pseudo-random values of every magnitude up to int64 (a fixed seed: the same cases every run). */
function randomValues(count: number): bigint[] {
  let seed = 0x2545f491n;
  const next = (): bigint => (seed = (seed * 6364136223846793005n + 1442695040888963407n) & 0xffff_ffff_ffff_ffffn);
  const out: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const bits = next() % 64n;
    const v = next() & ((1n << bits) - 1n);
    out.push(i % 2 === 0 ? v : -v);
  }
  return out;
}

const CASES = [...edgeValues(), ...randomValues(20_000)];

describe('unit formatters: number paths are exact', () => {
  it('formatDuration is formatHumanDuration on every value', () => {
    for (const v of CASES) expect(formatDuration(v), String(v)).toBe(formatHumanDuration(v));
  });

  it('formatSpan is the bigint reference on every value', () => {
    for (const v of CASES) expect(formatSpan(v), String(v)).toBe(spanReference(v));
  });

  it('ages keep their sign and words (past, future, unset)', () => {
    const now = 1_767_228_570_000_000_000n;
    for (const v of CASES.slice(0, 2_000)) {
      const d = v < 0n ? -v : v;
      expect(formatAgeShort(now - d, now)).toBe(spanReference(d));
      expect(formatAge(now - d, now)).toBe(`${spanReference(d)} ago`);
      if (d !== 0n) {
        expect(formatAgeShort(now + d, now)).toBe(`-${spanReference(d)}`);
        expect(formatAge(now + d, now)).toBe(`in ${spanReference(d)}`);
      }
    }
    expect(formatAgeShort(0n, now)).toBe('-');
    expect(formatSpan(59_999_999_999n)).toBe('59s');
    expect(formatDuration(9_007_199_254_740_993n)).toBe('104d5h');
  });
});

describe('tableView', () => {
  it('gives each row its own cells and the tones of its own row, with a poll time first when asked', () => {
    const polls = [
      { id: 1n, startTime: 1_767_225_600_000_000_000n, outcome: 'ok', coverage: 'full' },
      { id: 2n, startTime: 1_767_225_630_000_000_000n, outcome: 'timeout', coverage: 'truncated' },
      { id: 3n, startTime: 1_767_225_660_000_000_000n, outcome: 'ok', coverage: 'truncated' },
    ].map((p) => ({
      operation: 'ListKafkaConnections',
      target: '',
      duration: 1_500_000n,
      bytes: 2048n,
      rowsReturned: 10,
      httpStatus: 200,
      totalSize: 10,
      fanoutCalls: 1,
      scheduledTime: p.startTime,
      message: '',
      ...p,
    }));
    const view = tableView(
      'polls',
      polls.map((row) => ({ row, observedAt: row.startTime })),
      { wide: true, timeColumn: true },
    );
    const ids = view.columns.map((c) => c.id);
    const at = (id: string): number => ids.indexOf(id);
    expect(view.rows.map((r) => r.cells[at('outcome')])).toEqual(['ok', 'timeout', 'ok']);
    expect(view.rows.map((r) => r.cells[0])).toEqual([
      '2026-01-01T00:00:00Z',
      '2026-01-01T00:00:30Z',
      '2026-01-01T00:01:00Z',
    ]);
    expect(view.rows.map((r) => [r.tones[at('outcome')], r.tones[at('coverage')]])).toEqual([
      ['ok', undefined],
      ['error', 'warn'],
      ['ok', 'warn'],
    ]);
    expect(view.rows.every((r) => r.cells.length === ids.length && r.tones.length === ids.length)).toBe(true);
    expect(view.rows.map((r) => r.cells[at('duration')])).toEqual(['1.5ms', '1.5ms', '1.5ms']);
  });
});
