/**
 * Cluster leases on SQLite: one row per cluster (owner, heartbeat) in `collector_lease`, taken
 * and renewed in an immediate transaction, so two collectors on one database never both hold a
 * cluster. A lease whose heartbeat is older than the TTL may be taken over by a standby.
 */
import type { SqlSession } from '../sql-session.ts';
import type { ClusterLeases, LeaseState } from '../poll-record.ts';

interface LeaseRow {
  readonly owner: string;
  readonly heartbeat_at: number;
}

/** The leases of one open SQLite database. */
export function sqliteLeases(sqlite: SqlSession): ClusterLeases {
  const q = {
    get: sqlite.prepare('SELECT owner, heartbeat_at FROM collector_lease WHERE cluster = ?'),
    take: sqlite.prepare(
      `INSERT INTO collector_lease (cluster, owner, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (cluster) DO UPDATE SET owner = excluded.owner, acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
    ),
    renew: sqlite.prepare('UPDATE collector_lease SET heartbeat_at = ? WHERE cluster = ? AND owner = ?'),
    release: sqlite.prepare('DELETE FROM collector_lease WHERE cluster = ? AND owner = ?'),
  };
  const acquire = sqlite.transaction((cluster: string, owner: string, nowMs: number, ttlMs: number): LeaseState => {
    const now = Math.floor(nowMs);
    const row = q.get.get(cluster) as LeaseRow | undefined;
    if (row !== undefined && row.owner === owner) {
      q.renew.run(now, cluster, owner);
      return { held: true, owner, heartbeatAt: now };
    }
    // a heartbeat from the future (a clock set back) counts as fresh until the TTL passes from now
    if (row !== undefined && Math.abs(now - row.heartbeat_at) < ttlMs) {
      return { held: false, owner: row.owner, heartbeatAt: row.heartbeat_at };
    }
    q.take.run(cluster, owner, now, now);
    return { held: true, owner, heartbeatAt: now, ...(row === undefined ? {} : { tookOverFrom: row.owner }) };
  });
  return {
    acquire: (cluster, owner, nowMs, ttlMs) => acquire.immediate(cluster, owner, nowMs, ttlMs),
    release(cluster, owner) {
      q.release.run(cluster, owner);
    },
  };
}
