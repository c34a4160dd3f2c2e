/**
 * Active and standby collectors: before a cluster is polled, the collector takes or renews the
 * cluster's lease in the store. While another collector holds a fresh lease, this one is a
 * standby: it polls nothing and tries again at each round and heartbeat; it takes over once the
 * other stops (and releases the lease) or stops renewing it for longer than the TTL.
 *
 * An active collector that renewed a lease less than a third of the TTL ago does not ask the
 * store again before a round: no other collector may take the lease before the TTL has passed
 * since that renewal, and the heartbeat renews it every third of the TTL. A fleet's rounds then
 * cost the store no lease transaction each (three round trips on PostgreSQL).
 */
import type { ClusterLeases } from '../db/poll-record.ts';

/** Default lease TTL: a collector that has not renewed its lease for 30 s may be taken over. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/** What the keeper needs. */
export interface LeaseKeeperDeps {
  /** the store's leases (none: every cluster is ours) */
  readonly leases?: ClusterLeases;
  /** this collector's identity, e.g. `host pid 1234 (1f3e9a2c)` */
  readonly owner: string;
  /** wall clock, ms */
  readonly now: () => number;
  readonly ttlMs: number;
  /** where state changes are said */
  readonly line: (text: string) => void;
}

type State = 'unknown' | 'active' | 'standby';

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s}s` : `${Math.round(s / 60)}m`;
}

/** Keeps the leases of this collector's clusters. */
export class LeaseKeeper {
  readonly #deps: LeaseKeeperDeps;
  readonly #state = new Map<string, State>();
  readonly #failing = new Set<string>();
  /** the holder last seen while waiting as a standby */
  readonly #holder = new Map<string, string>();
  /** when this collector last took or renewed each lease it holds (its clock, ms) */
  readonly #renewedAt = new Map<string, number>();

  constructor(deps: LeaseKeeperDeps) {
    this.#deps = deps;
  }

  /** Clusters this collector currently waits on as a standby. */
  get standby(): string[] {
    return [...this.#state.entries()].filter(([, s]) => s === 'standby').map(([c]) => c);
  }

  /**
   * Takes or renews the lease of `cluster`; true when this collector may poll it now. Without
   * `renew`, a lease held and renewed less than a third of the TTL ago is not asked for again.
   */
  async hold(cluster: string, opts: { readonly renew?: boolean } = {}): Promise<boolean> {
    const { leases, owner, now, ttlMs, line } = this.#deps;
    if (leases === undefined) return true;
    const was = this.#state.get(cluster) ?? 'unknown';
    const at = now();
    const renewed = this.#renewedAt.get(cluster);
    if (opts.renew !== true && was === 'active' && renewed !== undefined && at >= renewed && at - renewed < ttlMs / 3) {
      return true;
    }
    this.#renewedAt.delete(cluster);
    let state;
    try {
      state = await leases.acquire(cluster, owner, at, ttlMs);
      this.#failing.delete(cluster);
    } catch (err) {
      // the store cannot be asked (disk full, busy): keep what we were; polls are held meanwhile
      if (!this.#failing.has(cluster)) {
        this.#failing.add(cluster);
        line(
          `warning: ${cluster}: cannot renew the recording lease in the database (${err instanceof Error ? err.message : String(err)}); keeping the current role`,
        );
      }
      return was !== 'standby';
    }
    if (state.held) {
      this.#state.set(cluster, 'active');
      this.#renewedAt.set(cluster, at);
      if (was === 'standby') {
        const why =
          state.tookOverFrom === undefined
            ? 'it stopped and gave the lease up'
            : `it did not renew its lease within ${ago(ttlMs)}`;
        line(
          `${cluster}: taking over the recording from ${state.tookOverFrom ?? this.#holder.get(cluster) ?? 'the previous collector'} (${why})`,
        );
      } else if (was === 'unknown' && state.tookOverFrom !== undefined) {
        line(`${cluster}: took over the recording lease of ${state.tookOverFrom}, which stopped without releasing it`);
      }
      return true;
    }
    this.#state.set(cluster, 'standby');
    this.#holder.set(cluster, state.owner);
    if (was === 'active') {
      line(
        `error: ${cluster}: another collector (${state.owner}) took over the recording (this one did not renew its lease in time); this one is now a standby`,
      );
    } else if (was === 'unknown') {
      line(
        `${cluster}: another collector (${state.owner}) is recording this cluster into this database ` +
          `(last heartbeat ${ago(now() - state.heartbeatAt)} ago); this one waits as a standby and takes over when it stops`,
      );
    }
    return false;
  }

  /** Gives up every lease this collector holds. */
  async releaseAll(): Promise<void> {
    const { leases, owner } = this.#deps;
    if (leases === undefined) return;
    for (const [cluster, s] of this.#state) {
      if (s !== 'active') continue;
      try {
        await leases.release(cluster, owner);
      } catch {
        // it expires by itself after the TTL
      }
      this.#state.set(cluster, 'unknown');
      this.#renewedAt.delete(cluster);
    }
  }
}
