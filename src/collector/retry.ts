/**
 * Retry policy: which Connect codes are retried, and how long to wait before each retry
 * (exponential back-off with full jitter; longer for `resource_exhausted`). Pure except for
 * the injected sleep.
 */
import { onAbort } from './abort-waiters.ts';

/** How retries are spaced. All times in milliseconds. */
export interface RetryPolicy {
  /** attempts per call, the first included (1 = never retry) */
  readonly maxAttempts: number;
  /** first back-off for unavailable / deadline_exceeded */
  readonly baseDelayMs: number;
  /** first back-off for resource_exhausted (the server's one-call-at-a-time 429) */
  readonly exhaustedDelayMs: number;
  /** upper bound of any single back-off */
  readonly maxDelayMs: number;
}

/** The default retry policy. */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  exhaustedDelayMs: 5_000,
  maxDelayMs: 30_000,
};

/** Codes worth retrying after a pause. */
export const RETRIED_CODES: ReadonlySet<string> = new Set(['unavailable', 'deadline_exceeded', 'resource_exhausted']);

/** Codes never retried: the answer will not change by asking again. */
export const FINAL_CODES: ReadonlySet<string> = new Set([
  'invalid_argument',
  'failed_precondition',
  'permission_denied',
  'unauthenticated',
  'not_found',
]);

/**
 * True when a failure with this code may be retried and the policy allows another attempt.
 * An answer over the local size limit (`resource_exhausted` of kind `protocol`) is not
 * retried: it would be just as large next time.
 */
export function shouldRetry(code: string, attempt: number, policy: RetryPolicy, kind?: string): boolean {
  if (code === 'resource_exhausted' && kind === 'protocol') return false;
  return attempt < policy.maxAttempts && RETRIED_CODES.has(code);
}

/**
 * The pause before retry number `attempt + 1`, after attempt `attempt` (1-based) failed with
 * `code`: `base * 2^(attempt-1)`, capped, then "equal jitter" (half fixed, half random) so the
 * wait never collapses to zero. `random` returns a number in [0, 1).
 */
export function backoffDelayMs(code: string, attempt: number, policy: RetryPolicy, random: () => number): number {
  const base = code === 'resource_exhausted' ? policy.exhaustedDelayMs : policy.baseDelayMs;
  const exp = Math.min(policy.maxDelayMs, base * 2 ** Math.max(0, attempt - 1));
  const half = exp / 2;
  return Math.round(half + half * clamp01(random()));
}

function clamp01(x: number): number {
  if (!Number.isFinite(x) || x < 0) return 0;
  return x >= 1 ? 0.999999 : x;
}

/** A pause that ends early (resolving false) when the signal aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<boolean>;

/** Real-time sleep: resolves true after `ms`, or false as soon as `signal` aborts. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<boolean>((resolve) => {
    if (signal?.aborted) {
      resolve(false);
      return;
    }
    const timer = setTimeout(
      () => {
        stop();
        resolve(true);
      },
      Math.max(0, ms),
    );
    // one listener on the signal however many sleep on it (abort-waiters.ts)
    const stop =
      signal === undefined
        ? () => undefined
        : onAbort(signal, () => {
            clearTimeout(timer);
            resolve(false);
          });
  });
