/** Simulated time: the world counts in microseconds from its start; the wire speaks nanoseconds. */

/** Nanoseconds per second, as bigint. */
export const NS_PER_S = 1_000_000_000n;
/** Microseconds per second. */
export const US_PER_S = 1_000_000;
/** The default world start, 2026-01-01T00:00:00Z, so runs are reproducible. */
export const DEFAULT_START_NS = 1_767_225_600n * NS_PER_S;

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
