/**
 * A simulated cluster's manual clock as a recorder drives it: the simulated time, and a sleep
 * that moves the clock forward instead of waiting (optionally paced against real time).
 */
import type { SimServer } from './server.ts';

/** Time and sleep on a simulated cluster's manual clock. */
export interface SimClock {
  /** simulated time, ns since the epoch */
  nowNs(): bigint;
  /** simulated time, ms since the epoch */
  nowMs(): number;
  /** moves the clock forward to `ms` (never back) */
  advanceTo(ms: number): void;
  /** moves the clock `ms` forward, after `pace` when given; false (the clock unmoved) when aborted */
  sleep(ms: number, signal?: AbortSignal): Promise<boolean>;
}

/**
 * The clock of `sim`. `pace`, when given, is awaited before each sleep moves the clock (to play
 * the simulation at a speed in real time); it returns false when it was aborted.
 */
export function simClock(
  sim: Pick<SimServer, 'world' | 'advance'>,
  pace?: (simMs: number) => Promise<boolean>,
): SimClock {
  const nowNs = (): bigint => sim.world.now();
  const nowMs = (): number => Number(nowNs() / 1_000_000n);
  const advanceTo = (ms: number): void => {
    const delta = ms - nowMs();
    if (delta > 0) sim.advance(delta / 1000);
  };
  return {
    nowNs,
    nowMs,
    advanceTo,
    sleep: async (ms, signal) => {
      if (signal?.aborted) return false;
      if (pace !== undefined && !(await pace(ms))) return false;
      advanceTo(nowMs() + ms);
      return true;
    },
  };
}
