/** The upgrade-finalization lifecycle: members restart onto a new release, then the cluster finalizes. */
import type { MemberVersion, UpgradeStatus } from '../api/schema/upgrade.ts';
import { eventsOf, isUp, us, type Plan } from './plan.ts';
import { sec } from './time.ts';

/** The release the world starts on. */
export const INITIAL_RELEASE = { release: 'v25.3.6', logical: 15 } as const;

interface Rollout {
  readonly from: { release: string; logical: number };
  readonly to: { release: string; logical: number };
  /** per node: restart begins, member is back, version is reported (µs) */
  readonly members: Map<number, { down: number; up: number; known: number }>;
  readonly finalizeAt: number;
  readonly auto: boolean;
}

/** Derives the upgrade status from the rolling upgrades of the plan. */
export class UpgradeModel {
  readonly #rollouts: Rollout[] = [];

  readonly #plan: Plan;

  constructor(plan: Plan) {
    this.#plan = plan;
    let current: { release: string; logical: number } = INITIAL_RELEASE;
    const { brokers, autoFinalization } = plan.config;
    for (const e of eventsOf(plan, 'rolling_upgrade').sort((a, b) => (a.at < b.at ? -1 : 1))) {
      const to = { release: e.toRelease ?? 'v26.1.1', logical: e.toLogical ?? current.logical + 1 };
      const at = us(e.at);
      const interval = us(e.memberInterval ?? 60_000_000_000n);
      const restart = us(e.restart ?? 20_000_000_000n);
      const members = new Map<number, { down: number; up: number; known: number }>();
      brokers.forEach((node, i) => {
        const down = at + i * interval;
        members.set(node, { down, up: down + restart, known: down + restart + sec(5) });
      });
      const ready = Math.max(...[...members.values()].map((m) => m.known));
      const auto = e.autoFinalize ?? autoFinalization;
      const finalizeAt = auto
        ? ready + sec(10)
        : e.finalizeAfter !== undefined
          ? ready + us(e.finalizeAfter)
          : Infinity;
      this.#rollouts.push({ from: current, to, members, finalizeAt, auto });
      current = to;
    }
  }

  /** The status at t (µs). */
  status(t: number): UpgradeStatus {
    let active: number = INITIAL_RELEASE.logical;
    let auto = this.#plan.config.autoFinalization;
    const members: MemberVersion[] = this.#plan.config.brokers.map((nodeId) => ({
      alive: isUp(this.#plan, nodeId, t),
      logicalVersion: BigInt(INITIAL_RELEASE.logical),
      nodeId,
      releaseVersion: INITIAL_RELEASE.release,
      versionKnown: true,
    }));
    for (const r of this.#rollouts) {
      const first = Math.min(...[...r.members.values()].map((m) => m.down));
      if (t < first) break;
      auto = r.auto;
      for (const m of members) {
        const times = r.members.get(m.nodeId);
        if (times === undefined) continue;
        if (t >= times.known) {
          m.logicalVersion = BigInt(r.to.logical);
          m.releaseVersion = r.to.release;
        } else if (t >= times.down) {
          m.versionKnown = false;
          m.logicalVersion = 0n;
          m.releaseVersion = '';
          if (t < times.up) m.alive = false;
        }
      }
      if (t >= r.finalizeAt) active = r.to.logical;
    }
    const activeVersion = BigInt(active);
    let state: UpgradeStatus['state'] = 'FINALIZATION_STATE_UPGRADE_IN_PROGRESS';
    let after = activeVersion;
    if (members.every((m) => m.versionKnown)) {
      const min = members.reduce(
        (v, m) => (m.logicalVersion < v ? m.logicalVersion : v),
        members[0]?.logicalVersion ?? activeVersion,
      );
      const same = members.every((m) => m.logicalVersion === min);
      if (same && min === activeVersion) state = 'FINALIZATION_STATE_FINALIZED';
      else if (same && min > activeVersion) {
        state = 'FINALIZATION_STATE_READY_TO_FINALIZE';
        after = min;
      }
    }
    return { activeVersion, autoFinalizationEnabled: auto, members, state, versionAfterFinalization: after };
  }
}
