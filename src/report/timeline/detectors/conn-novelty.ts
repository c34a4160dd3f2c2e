/**
 * Newcomers: client software (name and version) and principals never seen before in the
 * recording. The first poll is the baseline; each newcomer is one point event, at the open
 * time of its first connection.
 */
import type { DetectorContext } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { entity } from '../types.ts';
import type { ConnDetector } from './conn-storms.ts';

/** Detects new client software versions and new principals. */
export function noveltyDetector(_ctx: DetectorContext): ConnDetector {
  const book = new IntervalBook();
  const software = new Set<string>();
  const names = new Set<string>();
  const principals = new Set<string>();

  return {
    digest(d) {
      for (const c of d.opened) {
        const name = c.clientSoftwareName;
        const version = c.clientSoftwareVersion;
        const at = d.previousTime !== undefined && c.openTime < d.previousTime ? d.previousTime : c.openTime;
        const related = [entity('client', c.clientId), entity('broker', c.nodeId)];
        if (name !== '') {
          const key = `${name}\u0000${version}`;
          if (!software.has(key)) {
            software.add(key);
            const knownName = names.has(name);
            names.add(name);
            if (!d.first) {
              book.point({
                kind: knownName ? 'connections.new-software-version' : 'connections.new-software',
                severity: 'info',
                entity: entity('software', name, version),
                related,
                start: at,
                description: knownName
                  ? `new version of ${name}: ${version} (client ${c.clientId})`
                  : `new client software ${name} ${version} (client ${c.clientId})`,
                after: { clientSoftwareName: name, clientSoftwareVersion: version, clientId: c.clientId, uid: c.uid },
                pollId: d.frame.poll.id,
              });
            }
          }
        }
        const principal = c.authenticationInfo.userPrincipal;
        if (principal !== '' && !principals.has(principal)) {
          principals.add(principal);
          if (!d.first) {
            book.point({
              kind: 'connections.new-principal',
              severity: 'info',
              entity: entity('principal', principal),
              related,
              start: at,
              description: `new principal ${principal} (client ${c.clientId}, listener ${c.listenerName})`,
              after: { userPrincipal: principal, clientId: c.clientId, listenerName: c.listenerName, uid: c.uid },
              pollId: d.frame.poll.id,
            });
          }
        }
      }
    },
    finish() {
      return book.finish();
    },
  };
}
