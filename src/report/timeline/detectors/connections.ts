/** Every connection detector behind one frame detector: the stream is digested once per poll. */
import type { ConnFacts, ConnFrame } from '../conn-frame.ts';
import { newSeries, type DetectorContext, type FrameDetector, type Series } from '../detector.ts';
import { ConnTracker, authFailed } from './conn-tracker.ts';
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

/** Runs the connection detectors over the connections resource, fed column-wise frames; records open and failed-auth counts. */
export function connectionsDetector(ctx: DetectorContext): FrameDetector<ConnFacts, ConnFrame> {
  const tracker = new ConnTracker(ctx.thresholds.connections);
  const detectors = CONNECTION_DETECTORS.map((make) => make(ctx));
  const open = newSeries('connections.open', 'connections');
  const failed = newSeries('connections.auth-failures', 'connections');
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
    },
    finish(until) {
      return detectors.flatMap((det) => det.finish(until));
    },
    series(): Series[] {
      return [open, failed];
    },
  };
}
