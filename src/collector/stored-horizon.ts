/**
 * The time before which every poll of a cluster is stored: what the "a round was stored" hook
 * tells its observers, so that they can read the new polls back without cutting a round. A
 * round's polls start at or after the time it began and before it ended; rounds of different
 * operations of one cluster may overlap (they share the call queue), so the horizon is the
 * earliest beginning of the cluster's rounds still running, moved back to the beginning of a
 * finished round that straddles it (its later polls would come after the horizon).
 */
import type { RoundResult } from './poller.ts';

/** A round whose polls are stored, and how far its cluster's polls are stored (the collector's onStored hook). */
export interface StoredRound {
  readonly result: RoundResult;
  /** every poll of the cluster that started before this time (ns) is stored (or held while the store refuses writes) */
  readonly settledBefore: bigint;
}

interface Running {
  readonly cluster: string;
  readonly at: bigint;
}

interface Finished {
  readonly cluster: string;
  readonly at: bigint;
  readonly endedAt: bigint;
}

/** Rounds running and recently finished, per cluster; see the module comment. */
export class StoredHorizon {
  readonly #running = new Map<number, Running>();
  #finished: Finished[] = [];
  #next = 1;

  /** A round of `cluster` begins at `at` (ns): its polls start at or after it. Returns its token. */
  begin(cluster: string, at: bigint): number {
    const token = this.#next++;
    this.#running.set(token, { cluster, at });
    return token;
  }

  /**
   * The round of `token` ended at `endedAt` (ns), its polls stored; returns the time before
   * which every poll of its cluster is stored (at most `now`).
   */
  end(token: number, endedAt: bigint, now: bigint): bigint {
    const round = this.#running.get(token);
    this.#running.delete(token);
    if (round === undefined) return now;
    this.#finished.push({ cluster: round.cluster, at: round.at, endedAt });
    let horizon = now;
    for (const r of this.#running.values()) if (r.cluster === round.cluster && r.at < horizon) horizon = r.at;
    // a finished round reaching past the horizon would be cut: the horizon moves to its beginning
    for (let moved = true; moved;) {
      moved = false;
      for (const f of this.#finished) {
        if (f.cluster === round.cluster && f.at < horizon && f.endedAt >= horizon) {
          horizon = f.at;
          moved = true;
        }
      }
    }
    // a finished round wholly before the horizon of its cluster is needed no more
    this.#finished = this.#finished.filter((f) => f.cluster !== round.cluster || f.endedAt >= horizon);
    return horizon;
  }

  /** Forgets a round that stored nothing (a standby round). */
  drop(token: number): void {
    this.#running.delete(token);
  }
}
