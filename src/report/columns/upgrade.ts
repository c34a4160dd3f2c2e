/** Columns of `upgrade` (the singleton upgrade status) and `upgrade-members`. */
import { FinalizationState } from '../../api/schema/enums.ts';
import type { MemberVersion, UpgradeStatus } from '../../api/schema/upgrade.ts';
import { formatBool, NONE, shortEnum } from '../format-units.ts';
import { cell, numberColumn, stateTone, textColumn, type ColumnModel } from './types.ts';

const state = (u: UpgradeStatus): string => shortEnum(FinalizationState, u.state);
const tone = stateTone(['FINALIZED'], ['READY_TO_FINALIZE', 'UPGRADE_IN_PROGRESS'], []);

/** The column model of the upgrade status. */
export const upgradeColumns: ColumnModel<UpgradeStatus> = {
  resource: 'upgrade',
  label: () => 'cluster',
  columns: [
    textColumn('state', 'STATE', state, { tone: (u) => tone(state(u)), orderBy: 'state' }),
    numberColumn('active', 'ACTIVE VERSION', (u) => String(u.activeVersion), { orderBy: 'active_version' }),
    numberColumn('after', 'AFTER FINALIZATION', (u) => String(u.versionAfterFinalization)),
    textColumn('auto', 'AUTO-FINALIZE', (u) => formatBool(u.autoFinalizationEnabled)),
    numberColumn('members', 'MEMBERS', (u) => String(u.members.length)),
    numberColumn('alive', 'ALIVE', (u) => String(u.members.filter((m) => m.alive).length), {
      tone: (u) => (u.members.every((m) => m.alive) ? undefined : 'warn'),
    }),
    textColumn('releases', 'RELEASES', (u) => releases(u), { wide: true }),
  ],
};

/** Distinct release versions of the members, in order of first appearance. */
function releases(u: UpgradeStatus): string {
  const seen = [...new Set(u.members.map((m) => m.releaseVersion).filter((v) => v !== ''))];
  return seen.length === 0 ? NONE : seen.map(cell).join(', ');
}

/** The column model of upgrade members. */
export const upgradeMemberColumns: ColumnModel<MemberVersion> = {
  resource: 'upgrade-members',
  label: (m) => `node ${m.nodeId}`,
  columns: [
    numberColumn('node', 'NODE', (m) => String(m.nodeId), { orderBy: 'node_id', priority: 1, identity: true }),
    textColumn('release', 'RELEASE', (m) => cell(m.releaseVersion), { orderBy: 'release_version' }),
    numberColumn('logical', 'LOGICAL VERSION', (m) => (m.versionKnown ? String(m.logicalVersion) : NONE), {
      orderBy: 'logical_version',
    }),
    textColumn('known', 'KNOWN', (m) => formatBool(m.versionKnown), {
      tone: (m) => (m.versionKnown ? undefined : 'warn'),
      priority: 3,
    }),
    textColumn('alive', 'ALIVE', (m) => formatBool(m.alive), {
      tone: (m) => (m.alive ? 'ok' : 'error'),
      orderBy: 'alive',
    }),
  ],
};
