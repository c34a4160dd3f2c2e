/**
 * What happened to connections between two listings (two polls, or the states at two
 * instants): one definition and one word for each change, used by the browser's connections
 * view, `diff` and the timeline's connection detectors alike.
 *
 * - **new**: listed now, not listed before (whatever its state: one opened and closed between
 *   the two polls is new and closed). `diff` lists them as added.
 * - **closed**: listed now in state CLOSED, and not CLOSED (or not listed) before.
 * - **vanished**: listed before and not CLOSED then, not listed now: it went away without the
 *   cluster reporting a close.
 * - **expired**: listed before already CLOSED, not listed now: the cluster stopped listing a
 *   connection it had reported closed. `diff` lists vanished and expired ones as removed.
 * - **moving** / **idle**: listed both times and not closed now: its counters moved, or not.
 */
import type { KafkaConnection } from '../api/schema/connection.ts';

/** The words of connection changes, as every rendering prints them. */
export const CONNECTION_CHANGE_WORDS = {
  new: 'new',
  closed: 'closed',
  vanished: 'vanished',
  expired: 'expired',
  moving: 'moving',
  idle: 'idle',
} as const;

/** One kind of connection change. */
export type ConnectionChange = keyof typeof CONNECTION_CHANGE_WORDS;

/** What a connection change is computed from (a full row has it all). */
export type ConnectionListing = Pick<KafkaConnection, 'uid' | 'state'> & {
  readonly totalRequestStatistics?: KafkaConnection['totalRequestStatistics'];
};

/** The uids of each change between two listings. */
export interface ConnectionChanges {
  readonly new: readonly string[];
  readonly closed: readonly string[];
  readonly vanished: readonly string[];
  readonly expired: readonly string[];
  readonly moving: readonly string[];
  readonly idle: readonly string[];
}

const CLOSED = 'KAFKA_CONNECTION_STATE_CLOSED';

/** True for a connection the cluster reports closed. */
export function isClosedConnection(c: Pick<KafkaConnection, 'state'>): boolean {
  return c.state === CLOSED;
}

function countersOf(c: ConnectionListing): string {
  const t = c.totalRequestStatistics;
  return t === undefined ? '' : `${t.requestCount}/${t.fetchBytes}/${t.produceBytes}/${t.produceBatchCount}`;
}

/** Compares two listings (`previous` undefined: no earlier poll, nothing is new). A uid listed twice counts once. */
export function compareConnections(
  previous: readonly ConnectionListing[] | undefined,
  current: readonly ConnectionListing[],
): ConnectionChanges {
  const out = {
    new: [] as string[],
    closed: [] as string[],
    vanished: [] as string[],
    expired: [] as string[],
    moving: [] as string[],
    idle: [] as string[],
  };
  const before = new Map<string, ConnectionListing>();
  for (const c of previous ?? []) if (!before.has(c.uid)) before.set(c.uid, c);
  const now = new Set<string>();
  for (const c of current) {
    if (now.has(c.uid)) continue;
    now.add(c.uid);
    const old = before.get(c.uid);
    const closed = isClosedConnection(c);
    if (previous !== undefined && old === undefined) out.new.push(c.uid);
    if (closed && (old === undefined ? previous !== undefined : !isClosedConnection(old))) out.closed.push(c.uid);
    if (old !== undefined && !closed) (countersOf(old) !== countersOf(c) ? out.moving : out.idle).push(c.uid);
  }
  for (const [uid, c] of before) {
    if (now.has(uid)) continue;
    (isClosedConnection(c) ? out.expired : out.vanished).push(uid);
  }
  return out;
}

/** The counts of each change. */
export function connectionChangeCounts(c: ConnectionChanges): Record<ConnectionChange, number> {
  return {
    new: c.new.length,
    closed: c.closed.length,
    vanished: c.vanished.length,
    expired: c.expired.length,
    moving: c.moving.length,
    idle: c.idle.length,
  };
}
