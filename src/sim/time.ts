/** Simulated time: the world counts in microseconds from its start; the wire speaks nanoseconds. */

/** Nanoseconds per second, as bigint. */
export const NS_PER_S = 1_000_000_000n;
/** Microseconds per second. */
export const US_PER_S = 1_000_000;
/** The fixed world start of accelerated recordings, 2026-01-01T00:00:00Z, so runs are reproducible. */
export const DEFAULT_START_NS = 1_767_225_600n * NS_PER_S;
/** The earliest world start accepted: one second after the epoch (the wire reads the epoch as "unset"). */
export const MIN_START_NS = NS_PER_S;
/** The latest world start accepted, 9000-01-01T00:00:00Z: far below the wire's year 9999 limit. */
export const MAX_START_NS = BigInt(Date.UTC(9000, 0, 1)) * 1_000_000n;

/** The world start for a wall-clock instant in milliseconds (real-time simulation starts now). */
export function wallClockStart(nowMs: number): bigint {
  return BigInt(Math.floor(nowMs)) * 1_000_000n;
}

/** Why a world start cannot be used, or undefined when it can. */
export function startTimeProblem(ns: bigint): string | undefined {
  if (ns < MIN_START_NS) return 'must be after 1970-01-01T00:00:00Z (the epoch means "unset" on the wire)';
  if (ns > MAX_START_NS) return 'must be before 9000-01-01T00:00:00Z';
  return undefined;
}

/** Seconds (a number) to microseconds. */
export function sec(s: number): number {
  return Math.round(s * US_PER_S);
}

/** Microseconds (a number, relative to `start`) to an absolute wire timestamp in ns. */
export function absNs(start: bigint, us: number): bigint {
  return start + BigInt(Math.round(us)) * 1000n;
}

/** A duration in microseconds (a number) to nanoseconds. */
export function durNs(us: number): bigint {
  return BigInt(Math.max(0, Math.round(us))) * 1000n;
}

/** Nanoseconds (relative to the world start) to microseconds, rounding down. */
export function relUs(ns: bigint): number {
  const q = ns / 1000n;
  return Number(ns < 0n && q * 1000n !== ns ? q - 1n : q);
}
