/** GetUpgradeStatus: the upgrade-finalization lifecycle. */
import { f, message, type Infer } from './fields.ts';
import { FinalizationState } from './enums.ts';

/** A member's reported version, as seen by the controller leader. */
export const MemberVersion = message('MemberVersion', {
  alive: f.bool(),
  logicalVersion: f.int64('highest version the binary supports; meaningful when versionKnown'),
  nodeId: f.int32(),
  releaseVersion: f.string(),
  versionKnown: f.bool(),
});

/** GetUpgradeStatus request: empty. */
export const GetUpgradeStatusRequest = message('GetUpgradeStatusRequest', {});

/** GetUpgradeStatus response: the upgrade status resource. */
export const UpgradeStatus = message('GetUpgradeStatusResponse', {
  activeVersion: f.int64(),
  autoFinalizationEnabled: f.bool(),
  members: f.list(f.message(MemberVersion)),
  state: f.enum(FinalizationState),
  versionAfterFinalization: f.int64(),
});

/** A decoded upgrade status. */
export type UpgradeStatus = Infer<typeof UpgradeStatus>;
/** A decoded member version record. */
export type MemberVersion = Infer<typeof MemberVersion>;
