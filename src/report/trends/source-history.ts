/**
 * A source partition's recorded offset history (high watermark by refresh time), used to say
 * how far behind in time a shadow partition is: when did the source reach the offset the
 * shadow has now? Beyond the recorded history the answer is extrapolated, and says so.
 */

/** An estimated time lag. */
export interface TimeLag {
  /** nanoseconds behind the source; 0 when caught up */
  readonly ns: bigint;
  /** the offset lies before the recorded history: estimated from the average source rate */
  readonly extrapolated: boolean;
}

const MAX_POINTS = 8192;

/** Non-decreasing (time, offset) points of one source partition. */
export class SourceHistory {
  #times: bigint[] = [];
  #offsets: number[] = [];

  /** Number of recorded points. */
  get length(): number {
    return this.#times.length;
  }

  /** Records the source high watermark as refreshed at `time`; a decrease restarts the history. */
  add(time: bigint, offset: number): void {
    const n = this.#times.length;
    if (n > 0) {
      const lastT = this.#times[n - 1] as bigint;
      const lastO = this.#offsets[n - 1] as number;
      if (offset < lastO) {
        this.#times = [];
        this.#offsets = [];
      } else if (time <= lastT) {
        if (time === lastT && offset > lastO) this.#offsets[n - 1] = offset;
        return;
      }
    }
    this.#times.push(time);
    this.#offsets.push(offset);
    if (this.#times.length > MAX_POINTS) {
      this.#times.splice(0, MAX_POINTS / 4);
      this.#offsets.splice(0, MAX_POINTS / 4);
    }
  }

  /** Average source rate over the recorded history, records per second (0 when unknown). */
  ratePerSecond(): number {
    const n = this.#times.length;
    if (n < 2) return 0;
    const dt = Number((this.#times[n - 1] as bigint) - (this.#times[0] as bigint)) / 1e9;
    return dt > 0 ? ((this.#offsets[n - 1] as number) - (this.#offsets[0] as number)) / dt : 0;
  }

  /** When the source reached `offset` (ns), interpolated; undefined when it cannot be told. */
  reachedAt(offset: number): { time: bigint; extrapolated: boolean } | undefined {
    const n = this.#times.length;
    if (n === 0) return undefined;
    const offs = this.#offsets;
    if (offset > (offs[n - 1] as number)) return undefined;
    // first index whose offset reaches `offset`
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((offs[mid] as number) >= offset) hi = mid;
      else lo = mid + 1;
    }
    const t1 = this.#times[lo] as bigint;
    const o1 = offs[lo] as number;
    if (lo === 0) {
      if (o1 === offset) return { time: t1, extrapolated: false };
      const rate = this.ratePerSecond();
      if (rate <= 0) return undefined;
      return { time: t1 - BigInt(Math.round(((o1 - offset) / rate) * 1e9)), extrapolated: true };
    }
    const t0 = this.#times[lo - 1] as bigint;
    const o0 = offs[lo - 1] as number;
    const frac = o1 === o0 ? 1 : (offset - o0) / (o1 - o0);
    return { time: t0 + BigInt(Math.round(Number(t1 - t0) * frac)), extrapolated: false };
  }

  /** How far behind `now` a shadow at `shadowOffset` is (0 when at or past the source). */
  timeLag(now: bigint, shadowOffset: number): TimeLag | undefined {
    const n = this.#times.length;
    if (n === 0) return undefined;
    if (shadowOffset >= (this.#offsets[n - 1] as number)) return { ns: 0n, extrapolated: false };
    const at = this.reachedAt(shadowOffset);
    if (at === undefined) return undefined;
    const ns = now - at.time;
    return { ns: ns > 0n ? ns : 0n, extrapolated: at.extrapolated };
  }
}
