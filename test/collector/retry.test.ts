import { describe, expect, it } from 'vitest';
import { backoffDelayMs, DEFAULT_RETRY, FINAL_CODES, realSleep, shouldRetry } from '../../src/collector/retry.ts';

describe('retry policy', () => {
  it('retries unavailable, deadline_exceeded and resource_exhausted only', () => {
    for (const code of ['unavailable', 'deadline_exceeded', 'resource_exhausted'])
      expect(shouldRetry(code, 1, DEFAULT_RETRY)).toBe(true);
    for (const code of FINAL_CODES) expect(shouldRetry(code, 1, DEFAULT_RETRY)).toBe(false);
    expect(shouldRetry('internal', 1, DEFAULT_RETRY)).toBe(false);
  });

  it('stops at maxAttempts', () => {
    expect(shouldRetry('unavailable', DEFAULT_RETRY.maxAttempts - 1, DEFAULT_RETRY)).toBe(true);
    expect(shouldRetry('unavailable', DEFAULT_RETRY.maxAttempts, DEFAULT_RETRY)).toBe(false);
  });

  it('does not retry an answer over the local size limit', () => {
    expect(shouldRetry('resource_exhausted', 1, DEFAULT_RETRY, 'protocol')).toBe(false);
    expect(shouldRetry('resource_exhausted', 1, DEFAULT_RETRY, 'connect')).toBe(true);
  });

  it('backs off exponentially with jitter, longer for resource_exhausted, capped', () => {
    const p = { maxAttempts: 10, baseDelayMs: 100, exhaustedDelayMs: 1000, maxDelayMs: 5000 };
    expect(backoffDelayMs('unavailable', 1, p, () => 0)).toBe(50);
    expect(backoffDelayMs('unavailable', 1, p, () => 0.999999)).toBe(100);
    expect(backoffDelayMs('unavailable', 3, p, () => 0)).toBe(200);
    expect(backoffDelayMs('resource_exhausted', 1, p, () => 0)).toBe(500);
    expect(backoffDelayMs('resource_exhausted', 2, p, () => 0.5)).toBe(1500);
    expect(backoffDelayMs('unavailable', 20, p, () => 0)).toBe(2500);
    expect(backoffDelayMs('unavailable', 20, p, () => 1)).toBeLessThanOrEqual(5000);
  });

  it('real sleep ends early when aborted', async () => {
    const ctl = new AbortController();
    const p = realSleep(10_000, ctl.signal);
    ctl.abort();
    expect(await p).toBe(false);
    expect(await realSleep(1)).toBe(true);
  });
});
