/** Every connection detector behind one frame detector: the stream is digested once per poll. */
import type { ConnFacts, ConnFrame } from '../conn-frame.ts';
import { newSeries, type DetectorContext, type FrameDetector, type Series } from '../detector.ts';
import { ConnTracker, authFailed, isOpen } from './conn-tracker.ts';
import { splitEntity } from '../entity-names.ts';
import { stormDetector, type ConnDetector } from './conn-storms.ts';
import { clientDetector } from './conn-clients.ts';
import { authDetector } from './conn-auth.ts';
import { noveltyDetector } from './conn-novelty.ts';
import { brokerDetector } from './conn-brokers.ts';
import { inFlightDetector } from './conn-inflight.ts';
import { groupDetector } from './conn-groups.ts';
import { duplicateDetector } from './conn-duplicates.ts';

/** The connection detectors, in a stable order. */
export const CONNECTION_DETECTORS: readonly ((ctx: DetectorContext) => ConnDetector)[] = [
  stormDetector,
  clientDetector,
  authDetector,
  noveltyDetector,
  brokerDetector,
  inFlightDetector,
  groupDetector,
  duplicateDetector,
];

/** Whether a connection belongs to an entity a timeline is asked about (a client, broker, group, listener, principal or software). */
export function connectionMatcher(focus: string | undefined): ((c: ConnFacts) => boolean) | undefined {
  if (focus === undefined) return undefined;
  const { kind, name } = splitEntity(focus);
  switch (kind) {
    case 'client':
      return (c) => c.clientId === name;
    case 'broker':
      return (c) => String(c.nodeId) === name;
    case 'group':
      return (c) => c.groupId === name;
    case 'listener':
      return (c) => c.listenerName === name;
    case 'principal':
      return (c) => c.authenticationInfo.userPrincipal === name;
    case 'software':
      return (c) => `${c.clientSoftwareName}/${c.clientSoftwareVersion}` === name || c.clientSoftwareName === name;
    default:
      return undefined;
  }
}

/** Runs the connection detectors over the connections resource, fed column-wise frames; records open and failed-auth counts. */
export function connectionsDetector(ctx: DetectorContext): FrameDetector<ConnFacts, ConnFrame> {
  const tracker = new ConnTracker(ctx.thresholds.connections);
  const detectors = CONNECTION_DETECTORS.map((make) => make(ctx));
  const open = newSeries('connections.open', 'connections');
  const failed = newSeries('connections.auth-failures', 'failed authentications per poll');
  // the same counts for the entity the timeline is asked about, when connections belong to it
  const mine = connectionMatcher(ctx.focus);
  const ownOpen = mine === undefined ? undefined : newSeries(`connections.open/${ctx.focus}`, 'connections', ctx.focus);
  const ownFailed =
    mine === undefined
      ? undefined
      : newSeries(`connections.auth-failures/${ctx.focus}`, 'failed authentications per poll', ctx.focus);
  return {
    frame(f) {
      const d = tracker.digest(f);
      for (const det of detectors) det.digest(d);
      if (d.complete) {
        open.times.push(f.time);
        open.values.push(d.openCount);
      }
      let a = 0;
      for (const c of d.opened) if (authFailed(c)) a++;
      failed.times.push(f.time);
      failed.values.push(a);
      if (mine !== undefined && ownOpen !== undefined && ownFailed !== undefined) {
        let n = 0;
        let af = 0;
        for (const c of f.rows) if (isOpen(c) && mine(c)) n++;
        for (const c of d.opened) if (authFailed(c) && mine(c)) af++;
        if (d.complete) {
          ownOpen.times.push(f.time);
          ownOpen.values.push(n);
        }
        ownFailed.times.push(f.time);
        ownFailed.values.push(af);
      }
    },
    finish(until) {
      return detectors.flatMap((det) => det.finish(until));
    },
    series(): Series[] {
      return ownOpen === undefined || ownFailed === undefined ? [open, failed] : [open, failed, ownOpen, ownFailed];
    },
  };
}
