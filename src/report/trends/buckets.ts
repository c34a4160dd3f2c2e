/** Equal time buckets over a window, and per-key accumulation into them. */

/** Buckets over [since, until]. */
export class Buckets {
  readonly since: bigint;
  readonly until: bigint;
  readonly count: number;
  readonly #span: bigint;

  constructor(since: bigint, until: bigint, count: number) {
    this.since = since;
    this.until = until;
    this.count = Math.max(1, count);
    this.#span = until > since ? until - since : 1n;
  }

  /** The bucket of an instant (clamped to the window). */
  index(t: bigint): number {
    if (t <= this.since) return 0;
    if (t >= this.until) return this.count - 1;
    return Math.min(this.count - 1, Number(((t - this.since) * BigInt(this.count)) / this.#span));
  }

  /** The width of one bucket in seconds. */
  seconds(): number {
    return Number(this.#span) / 1e9 / this.count;
  }

  /** A new series of NaN. */
  empty(): number[] {
    return new Array<number>(this.count).fill(Number.NaN);
  }
}

/** Adds `v` into slot `i` of a NaN-initialised series. */
export function addAt(series: number[], i: number, v: number): void {
  const cur = series[i] as number;
  series[i] = Number.isNaN(cur) ? v : cur + v;
}

/** Keeps the largest value in slot `i`. */
export function maxAt(series: number[], i: number, v: number): void {
  const cur = series[i] as number;
  series[i] = Number.isNaN(cur) || v > cur ? v : cur;
}
