/**
 * A growth run over a noisy series: it starts at the lowest point before a rise and turns into
 * an interval once the rise exceeds a threshold; it ends at the peak once the value falls
 * clearly below it.
 */

/** One point of the series. */
export interface RunPoint {
  readonly time: bigint;
  readonly value: number;
  readonly pollId: bigint;
}

/** What a step of the run reports. */
export type RunStep =
  | { readonly kind: 'none' }
  | { readonly kind: 'started'; readonly from: RunPoint }
  | { readonly kind: 'growing'; readonly peak: RunPoint }
  | { readonly kind: 'ended'; readonly peak: RunPoint };

/** Tracks one series. */
export class GrowthRun {
  #low: RunPoint | undefined;
  #peak: RunPoint | undefined;
  #growing = false;

  /** The run's lowest point, while growing. */
  get from(): RunPoint | undefined {
    return this.#growing ? this.#low : undefined;
  }

  /** True while a run longer than the threshold is under way. */
  get active(): boolean {
    return this.#growing;
  }

  /** Feeds the next point; `threshold` is the rise that counts, `noise` the dip that does not break the run. */
  step(p: RunPoint, threshold: number, noise: number): RunStep {
    if (this.#low === undefined || this.#peak === undefined) {
      this.#low = p;
      this.#peak = p;
      return { kind: 'none' };
    }
    const span = this.#peak.value - this.#low.value;
    if (p.value < this.#peak.value - Math.max(noise, span * 0.1)) {
      const peak = this.#peak;
      const wasGrowing = this.#growing;
      this.#growing = false;
      this.#low = p;
      this.#peak = p;
      return wasGrowing ? { kind: 'ended', peak } : { kind: 'none' };
    }
    if (!this.#growing && p.value <= this.#low.value + noise) {
      // flat or lower: the run, if any, starts from here
      this.#low = p.value < this.#low.value || this.#peak.value - this.#low.value <= noise ? p : this.#low;
      if (this.#low === p) this.#peak = p;
      else if (p.value >= this.#peak.value) this.#peak = p;
      return { kind: 'none' };
    }
    if (p.value >= this.#peak.value) this.#peak = p;
    if (!this.#growing && this.#peak.value - this.#low.value >= threshold) {
      this.#growing = true;
      return { kind: 'started', from: this.#low };
    }
    return this.#growing ? { kind: 'growing', peak: this.#peak } : { kind: 'none' };
  }

  /** Forgets the run (e.g. the series stopped meaning anything); returns the peak if one was growing. */
  reset(): RunPoint | undefined {
    const peak = this.#growing ? this.#peak : undefined;
    this.#low = undefined;
    this.#peak = undefined;
    this.#growing = false;
    return peak;
  }
}
