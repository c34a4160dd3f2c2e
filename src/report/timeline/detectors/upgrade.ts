/**
 * The upgrade-finalization lifecycle (GetUpgradeStatus): state changes (in progress, ready to
 * finalize, finalized), the active version moving, members moving to a new version, members
 * not alive or with an unknown version, members added or removed.
 */
import type { UpgradeStatus } from '../../../api/schema/upgrade.ts';
import type { DetectorContext, FrameDetector } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { StateIntervals } from '../state-intervals.ts';
import { entity } from '../types.ts';

const STATE_SEVERITY = {
  FINALIZATION_STATE_UPGRADE_IN_PROGRESS: 'info',
  FINALIZATION_STATE_READY_TO_FINALIZE: 'info',
  FINALIZATION_STATE_UNSPECIFIED: 'warn',
} as const;

interface Member {
  alive: boolean;
  known: boolean;
  version: string | undefined;
}

const UPGRADE = entity('upgrade', 'cluster');

function versionText(logical: bigint, release: string): string {
  return release !== '' ? `${release} (${logical})` : String(logical);
}

/** Detects upgrade lifecycle changes and member trouble. */
export function upgradeDetector(_ctx: DetectorContext): FrameDetector<UpgradeStatus> {
  const book = new IntervalBook();
  const states = new StateIntervals(book, {
    kind: 'upgrade.state',
    prefix: 'FINALIZATION_STATE_',
    severity: STATE_SEVERITY,
  });
  const members = new Map<number, Member>();
  let active: bigint | undefined;
  let first = true;

  return {
    frame(f) {
      const u = f.rows[0];
      if (u === undefined) return;
      const pollId = f.poll.id;
      const reason =
        u.state === 'FINALIZATION_STATE_READY_TO_FINALIZE'
          ? `active ${u.activeVersion}, would become ${u.versionAfterFinalization}`
          : `active ${u.activeVersion}`;
      states.observe({
        key: 'state',
        entity: UPGRADE,
        label: 'cluster upgrade',
        state: u.state,
        reason,
        time: f.time,
        pollId,
        first,
      });
      if (active !== undefined && u.activeVersion !== active) {
        book.point({
          kind: 'upgrade.active-version',
          severity: 'info',
          entity: UPGRADE,
          start: f.time,
          description: `active version moved from ${active} to ${u.activeVersion}`,
          before: { activeVersion: String(active) },
          after: { activeVersion: String(u.activeVersion) },
          pollId,
        });
      }
      active = u.activeVersion;
      const seen = new Set<number>();
      for (const m of u.members) {
        seen.add(m.nodeId);
        const ref = entity('broker', m.nodeId);
        const version = m.versionKnown ? versionText(m.logicalVersion, m.releaseVersion) : undefined;
        let prev = members.get(m.nodeId);
        if (prev === undefined) {
          prev = { alive: true, known: true, version };
          members.set(m.nodeId, prev);
          if (!first) {
            book.point({
              kind: 'upgrade.member-added',
              severity: 'info',
              entity: ref,
              related: [UPGRADE],
              start: f.time,
              description: `member ${m.nodeId} joined${version !== undefined ? ` on ${version}` : ''}`,
              pollId,
            });
          }
        }
        const downKey = `down\u0000${m.nodeId}`;
        if (!m.alive) {
          book.start(downKey, {
            kind: 'upgrade.member-down',
            severity: 'warn',
            entity: ref,
            related: [UPGRADE],
            start: f.time,
            description: `member ${m.nodeId} not alive (controller's view)`,
            before: { alive: String(prev.alive) },
            after: { alive: 'false' },
            pollId,
            startedBefore: first,
          });
        } else if (m.alive) {
          book.end(downKey, f.time, pollId, { alive: 'true' });
        }
        const unknownKey = `unknown\u0000${m.nodeId}`;
        if (!m.versionKnown) {
          book.start(unknownKey, {
            kind: 'upgrade.member-version-unknown',
            severity: 'info',
            entity: ref,
            related: [UPGRADE],
            start: f.time,
            description: `member ${m.nodeId}: version not known to the controller${prev.version !== undefined ? ` (was ${prev.version})` : ''}`,
            before: { version: prev.version ?? '' },
            pollId,
            startedBefore: first,
          });
        } else {
          book.end(unknownKey, f.time, pollId, { version: version ?? '' });
          if (prev.version !== undefined && version !== undefined && version !== prev.version) {
            book.point({
              kind: 'upgrade.member-version',
              severity: 'info',
              entity: ref,
              related: [UPGRADE],
              start: f.time,
              description: `member ${m.nodeId} moved from ${prev.version} to ${version}`,
              before: { version: prev.version },
              after: { version, logicalVersion: String(m.logicalVersion), releaseVersion: m.releaseVersion },
              pollId,
            });
          }
          prev.version = version;
        }
        prev.alive = m.alive;
        prev.known = m.versionKnown;
      }
      for (const [node] of members) {
        if (seen.has(node)) continue;
        members.delete(node);
        book.end(`down\u0000${node}`, f.time, pollId);
        book.end(`unknown\u0000${node}`, f.time, pollId);
        book.point({
          kind: 'upgrade.member-removed',
          severity: 'warn',
          entity: entity('broker', node),
          related: [UPGRADE],
          start: f.time,
          description: `member ${node} no longer reported`,
          pollId,
        });
      }
      first = false;
    },
    finish() {
      return book.finish();
    },
  };
}
