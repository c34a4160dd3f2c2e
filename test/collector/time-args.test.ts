import { describe, expect, it } from 'vitest';
import {
  formatDurationArg,
  parseCutoffArg,
  parseDurationArg,
  parseDurationMs,
  parseTimeArg,
  TimeArgError,
} from '../../src/collector/time-args.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const ns = (iso: string): bigint => BigInt(Date.parse(iso)) * 1_000_000n;

describe('time and duration arguments', () => {
  it('parses durations with units, compounds and fractions', () => {
    expect(parseDurationArg('30s')).toBe(30_000_000_000n);
    expect(parseDurationArg('10m')).toBe(600_000_000_000n);
    expect(parseDurationArg('1h30m')).toBe(5_400_000_000_000n);
    expect(parseDurationArg('7d')).toBe(7n * 86_400n * 1_000_000_000n);
    expect(parseDurationArg('1.5h')).toBe(5_400_000_000_000n);
    expect(parseDurationArg('500ms')).toBe(500_000_000n);
    expect(parseDurationArg('2w')).toBe(14n * 86_400n * 1_000_000_000n);
    expect(parseDurationArg('0')).toBe(0n);
    expect(parseDurationMs('1ns')).toBe(1);
    expect(parseDurationMs('2s')).toBe(2000);
  });

  it('refuses bare numbers, unknown units and negative durations', () => {
    for (const bad of ['10', '5x', '', '-5m', 'm', '1h 30m']) expect(() => parseDurationArg(bad)).toThrow(TimeArgError);
  });

  it('parses RFC 3339, now, and relative forms meaning that long ago', () => {
    expect(parseTimeArg('now', NOW)).toBe(ns('2026-01-01T12:00:00Z'));
    expect(parseTimeArg('-2h', NOW)).toBe(ns('2026-01-01T10:00:00Z'));
    expect(parseTimeArg('30m', NOW)).toBe(ns('2026-01-01T11:30:00Z'));
    expect(parseTimeArg('-1d', NOW)).toBe(ns('2025-12-31T12:00:00Z'));
    expect(parseTimeArg('2025-09-01T10:22:54.5+02:00', NOW)).toBe(ns('2025-09-01T08:22:54.500Z'));
    expect(parseCutoffArg('7d', NOW)).toBe(ns('2025-12-25T12:00:00Z'));
  });

  it('explains what it accepts when a time is wrong', () => {
    expect(() => parseTimeArg('yesterday', NOW)).toThrow(/RFC 3339.*now.*-2h/);
    expect(() => parseTimeArg('2025-13-01T00:00:00Z', NOW)).toThrow(TimeArgError);
  });

  it('formats durations compactly', () => {
    expect(formatDurationArg(5_400_000_000_000n)).toBe('1h30m');
    expect(formatDurationArg(0n)).toBe('0s');
    expect(formatDurationArg(1_500_000_000n)).toBe('1s500ms');
  });
});
