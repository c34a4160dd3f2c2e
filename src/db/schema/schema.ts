/**
 * The drizzle schema of the history store (ordinary rowid tables). drizzle-kit generates the
 * first migration from this file; the WITHOUT ROWID tables live in `schema-custom.ts` and a
 * hand-written migration. Times are nanoseconds since the epoch (INTEGER, read as bigint);
 * columns named after a string hold an id of `str` (the string dictionary). See docs/storage.md.
 */
import { sql } from 'drizzle-orm';
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { slowColumns } from '../connections/fields.ts';

const ns = (name: string) => integer(name).$type<bigint>();
const strId = (name: string) => integer(name).notNull();

/** Store-wide counters, e.g. `prune_generation` (bumped by prune so writers drop their caches). */
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: integer('value').notNull(),
});

/** Recorded clusters, by the name the collector config gives them. */
export const cluster = sqliteTable('cluster', {
  id: integer('id').primaryKey(),
  name: text('name').notNull().unique(),
});

/** One row per call attempt (ok or failed): what was asked, when, and how it ended. */
export const poll = sqliteTable(
  'poll',
  {
    id: integer('id').primaryKey(),
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    operation: text('operation').notNull(),
    target: text('target').notNull(),
    round: text('round').notNull(),
    attempt: integer('attempt').notNull(),
    scheduledAt: ns('scheduled_at').notNull(),
    startedAt: ns('started_at').notNull(),
    endedAt: ns('ended_at').notNull(),
    /** 1 when the answer was decoded and stored */
    ok: integer('ok').notNull(),
    /** 'ok' or the Connect error code */
    outcome: text('outcome').notNull(),
    kind: text('kind'),
    httpStatus: integer('http_status'),
    message: text('message'),
    /** Connect error details, JSON */
    details: text('details'),
    /** JSON path of a validation failure */
    path: text('path'),
    bytes: integer('bytes').notNull(),
    /** the request, server-style JSON */
    request: text('request').notNull(),
    rowsReturned: integer('rows_returned'),
    totalSize: ns('total_size'),
    fanoutCalls: integer('fanout_calls'),
    slice: text('slice'),
    /** unknown fields of the answer's fixed parts, JSON, only when present */
    extra: text('extra'),
    /** occurrences of a configured secret removed from what the server sent before storing it; NULL when none */
    redactions: integer('redactions'),
  },
  (t) => [
    index('poll_by_cluster_op_time').on(t.clusterId, t.operation, t.startedAt),
    index('poll_by_target').on(t.clusterId, t.operation, t.target, t.ok, t.startedAt),
    index('poll_by_round').on(t.clusterId, t.round),
    index('poll_by_time').on(t.startedAt),
  ],
);

/**
 * Which collector records a cluster into this database (one active collector per cluster; the
 * others wait as standbys): the owner renews its heartbeat, a standby takes an expired lease.
 */
export const collectorLease = sqliteTable('collector_lease', {
  /** the cluster's name, as in `cluster.name` */
  cluster: text('cluster').primaryKey(),
  /** who holds it: host, process id and a random suffix */
  owner: text('owner').notNull(),
  /** when the owner took it, ms since the epoch (wall clock) */
  acquiredAt: integer('acquired_at').notNull(),
  /** the owner's last renewal, ms since the epoch (wall clock) */
  heartbeatAt: integer('heartbeat_at').notNull(),
});

/** Raw bodies, gzip'd: of failed or unparseable answers, and of all answers when asked. */
export const pollRaw = sqliteTable('poll_raw', {
  pollId: integer('poll_id')
    .primaryKey()
    .references(() => poll.id, { onDelete: 'cascade' }),
  encoding: text('encoding').notNull(),
  body: blob('body', { mode: 'buffer' }).notNull(),
});

/** The string dictionary: every string value of the history, stored once. */
export const str = sqliteTable(
  'str',
  {
    id: integer('id').primaryKey(),
    /** 52-bit hash of the string, for lookups */
    h: integer('h').notNull(),
    /** TEXT, or a UTF-16LE BLOB for strings with lone surrogates */
    s: text('s').notNull(),
  },
  (t) => [index('str_by_hash').on(t.h)],
);

/** Content-addressed JSON documents (shadow link configurations and sync status), stored once. */
export const doc = sqliteTable(
  'doc',
  {
    id: integer('id').primaryKey(),
    h: integer('h').notNull(),
    body: text('body').notNull(),
  },
  (t) => [index('doc_by_hash').on(t.h)],
);

/** A connection's identity: what cannot change while it lives. */
export const connEntity = sqliteTable(
  'conn_entity',
  {
    id: integer('id').primaryKey(),
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    uid: text('uid').notNull(),
    nodeId: integer('node_id').notNull(),
    shardId: integer('shard_id').notNull(),
    listener: strId('listener'),
    /** inline: nearly one value per connection, a dictionary would not share it */
    sourceIp: text('source_ip').notNull(),
    sourcePort: integer('source_port').notNull(),
    tls: integer('tls').notNull(),
    openTime: ns('open_time'),
    /** first poll that listed it */
    firstPoll: integer('first_poll').notNull(),
    /** last poll that listed it, as of the last sealed batch */
    lastPoll: integer('last_poll').notNull(),
    /** JSON: exact values of out-of-int64 columns, only when needed */
    extra: text('extra'),
    /** the same identity as one varint record, for fast bulk reads (src/db/connections/packed.ts) */
    packed: blob('packed', { mode: 'buffer' }).notNull(),
  },
  (t) => [index('conn_entity_by_uid').on(t.clusterId, t.uid)],
);

/** A version of a connection's slowly changing attributes, valid from `from_poll` until superseded. */
export const connVersion = sqliteTable(
  'conn_version',
  {
    id: integer('id').primaryKey(),
    entity: integer('entity')
      .notNull()
      .references(() => connEntity.id, { onDelete: 'cascade' }),
    fromPoll: integer('from_poll').notNull(),
    /** the poll that superseded it; NULL while current (or until the connection went away) */
    toPoll: integer('to_poll'),
    /** the slow attributes, declared in connections/fields.ts */
    ...slowColumns(),
    /** unknown fields of the connection's slow parts, by path, JSON; NULL when none */
    unknown: text('unknown'),
    /** the same version as one varint record, for fast bulk reads (src/db/connections/packed.ts) */
    packed: blob('packed', { mode: 'buffer' }).notNull(),
  },
  (t) => [index('conn_version_by_entity').on(t.entity, t.fromPoll)],
);

/** A batch of consecutive connection frames of one cluster; sealed batches hold chunks. */
export const connBatch = sqliteTable(
  'conn_batch',
  {
    id: integer('id').primaryKey(),
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    firstPoll: integer('first_poll').notNull(),
    lastPoll: integer('last_poll').notNull(),
    frames: integer('frames').notNull(),
    sealed: integer('sealed')
      .notNull()
      .default(sql`0`),
  },
  (t) => [index('conn_batch_by_cluster').on(t.clusterId, t.lastPoll)],
);

/** One successful ListKafkaConnections answer: its rows' versions in answer order (+ head samples). */
export const connFrame = sqliteTable(
  'conn_frame',
  {
    poll: integer('poll')
      .primaryKey()
      .references(() => poll.id, { onDelete: 'cascade' }),
    batch: integer('batch')
      .notNull()
      .references(() => connBatch.id),
    seq: integer('seq').notNull(),
    rows: integer('rows').notNull(),
    /** the answer's totalSize */
    totalSize: ns('total_size').notNull(),
    /** 1 when a uid appears more than once in the answer */
    dupUids: integer('dup_uids')
      .notNull()
      .default(sql`0`),
    /** deflated varints: zigzag deltas of conn_version ids, in answer order */
    versions: blob('versions', { mode: 'buffer' }).notNull(),
    /** absolute samples in answer order while the batch is open; NULL once sealed */
    head: blob('head', { mode: 'buffer' }),
  },
  (t) => [index('conn_frame_by_batch').on(t.batch, t.seq)],
);

/** GetShadowLink: the link's own fields per poll; configuration and sync status as shared docs. */
export const linkSample = sqliteTable(
  'link_sample',
  {
    poll: integer('poll')
      .primaryKey()
      .references(() => poll.id, { onDelete: 'cascade' }),
    name: strId('name'),
    uid: strId('uid'),
    state: strId('state'),
    /** `doc` ids (no foreign key: prune removes unreferenced docs itself) */
    configurations: integer('configurations').notNull(),
    syncedProperties: integer('synced_properties').notNull(),
    srStatus: integer('sr_status').notNull(),
  },
  (t) => [index('link_sample_by_name').on(t.name)],
);

/** GetUpgradeStatus: the singleton per poll. */
export const upgradeSample = sqliteTable('upgrade_sample', {
  poll: integer('poll')
    .primaryKey()
    .references(() => poll.id, { onDelete: 'cascade' }),
  activeVersion: ns('active_version').notNull(),
  versionAfterFinalization: ns('version_after_finalization').notNull(),
  autoFinalization: integer('auto_finalization').notNull(),
  state: strId('state'),
});

/** GetIcebergStatus: the catalog per poll. */
export const icebergSample = sqliteTable('iceberg_sample', {
  poll: integer('poll')
    .primaryKey()
    .references(() => poll.id, { onDelete: 'cascade' }),
  reachable: integer('reachable').notNull(),
  errorCode: strId('error_code'),
  errorMessage: strId('error_message'),
});

// ---- rollups: raw history summarised at 5-minute and 1-hour resolution before it is pruned ----
// `resolution` is the bucket width in seconds (300, 3600); `start` the bucket start (ns).
// Counter deltas are decimal TEXT (uint64 sums may exceed int64); lags and offsets are INTEGER (int64).

/** How far raw history has been summarised, per cluster and resolution (0: the timeline's events). */
export const rollupProgress = sqliteTable(
  'rollup_progress',
  {
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    resolution: integer('resolution').notNull(),
    /** everything before this instant (ns) is summarised */
    until: ns('until').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clusterId, t.resolution] })],
);

/** One summarised bucket: how many connection polls it saw, and the first and last of them. */
export const rollupBucket = sqliteTable(
  'rollup_bucket',
  {
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    resolution: integer('resolution').notNull(),
    start: ns('start').notNull(),
    connPolls: integer('conn_polls').notNull(),
    firstPoll: ns('first_poll'),
    lastPoll: ns('last_poll'),
  },
  (t) => [primaryKey({ columns: [t.clusterId, t.resolution, t.start] })],
);

/** A connection group: node, listener, principal, client id and software, stored once. */
export const rollupGroup = sqliteTable(
  'rollup_group',
  {
    id: integer('id').primaryKey(),
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    nodeId: integer('node_id').notNull(),
    listener: text('listener').notNull(),
    principal: text('principal').notNull(),
    clientId: text('client_id').notNull(),
    /** `name version`, or empty when unknown */
    software: text('software').notNull(),
  },
  (t) => [
    uniqueIndex('rollup_group_by_key').on(t.clusterId, t.nodeId, t.listener, t.principal, t.clientId, t.software),
  ],
);

/** Per connection group and bucket: open counts, opened and closed, counter deltas, failed authentications. */
export const rollupConn = sqliteTable(
  'rollup_conn',
  {
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    resolution: integer('resolution').notNull(),
    start: ns('start').notNull(),
    groupId: integer('group_id')
      .notNull()
      .references(() => rollupGroup.id),
    /** open connections over the bucket's polls: min, max, at the last poll, and the sum (mean = sum / conn_polls) */
    openMin: integer('open_min').notNull(),
    openMax: integer('open_max').notNull(),
    openLast: integer('open_last').notNull(),
    openSum: integer('open_sum').notNull(),
    opened: integer('opened').notNull(),
    closed: integer('closed').notNull(),
    authFailures: integer('auth_failures').notNull(),
    resets: integer('resets').notNull(),
    /** counter increases, decimal */
    produceBytes: text('produce_bytes').notNull(),
    produceBatches: text('produce_batches').notNull(),
    fetchBytes: text('fetch_bytes').notNull(),
    requests: text('requests').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clusterId, t.resolution, t.start, t.groupId] })],
);

/** Per shadow partition and bucket: lag (min, max, last), and the shadow's progress. */
export const rollupShadow = sqliteTable(
  'rollup_shadow',
  {
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    resolution: integer('resolution').notNull(),
    start: ns('start').notNull(),
    link: text('link').notNull(),
    topic: text('topic').notNull(),
    partition: integer('partition').notNull(),
    lagMin: ns('lag_min').notNull(),
    lagMax: ns('lag_max').notNull(),
    lagLast: ns('lag_last').notNull(),
    /** shadow and source high watermarks at the bucket's last poll */
    shadowLast: ns('shadow_last').notNull(),
    sourceLast: ns('source_last').notNull(),
    /** how far the shadow high watermark advanced in the bucket */
    progress: ns('progress').notNull(),
    state: text('state').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clusterId, t.resolution, t.start, t.link, t.topic, t.partition] })],
);

/** Per Iceberg topic and bucket: commit lag (min, max, last) and committed progress. */
export const rollupIceberg = sqliteTable(
  'rollup_iceberg',
  {
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    resolution: integer('resolution').notNull(),
    start: ns('start').notNull(),
    topic: text('topic').notNull(),
    lagMin: ns('lag_min').notNull(),
    lagMax: ns('lag_max').notNull(),
    lagLast: ns('lag_last').notNull(),
    partitions: integer('partitions').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clusterId, t.resolution, t.start, t.topic] })],
);

/** Upgrade and shadow link states as intervals (`end` NULL while the state lasts). */
export const rollupState = sqliteTable(
  'rollup_state',
  {
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    /** `upgrade` or `link/NAME` */
    entity: text('entity').notNull(),
    start: ns('start').notNull(),
    end: ns('end'),
    state: text('state').notNull(),
  },
  (t) => [primaryKey({ columns: [t.clusterId, t.entity, t.start] })],
);

/** The timeline's events found while raw history existed, kept after it is pruned. */
export const rollupEvent = sqliteTable(
  'rollup_event',
  {
    clusterId: integer('cluster_id')
      .notNull()
      .references(() => cluster.id),
    kind: text('kind').notNull(),
    entity: text('entity').notNull(),
    start: ns('start').notNull(),
    /** NULL while ongoing at the last rollup */
    end: ns('end'),
    /** the whole event, JSON (int64 values as decimal strings) */
    body: text('body').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.clusterId, t.kind, t.entity, t.start] }),
    index('rollup_event_by_time').on(t.clusterId, t.start),
  ],
);

/**
 * What retention and `db prune` removed: one row per action and cluster (src/db/maintain/maintenance-log.ts),
 * read by `flightrec db log`.
 */
export const maintenanceLog = sqliteTable(
  'maintenance_log',
  {
    id: integer('id').primaryKey(),
    /** when the action ended, ns since the epoch */
    at: ns('at').notNull(),
    /** the cluster's name; NULL for an action over the whole store (rollups, `db prune`) */
    cluster: text('cluster'),
    /** `retention-raw`, `retention-size`, `retention-rollups` or `prune` */
    action: text('action').notNull(),
    /** history older than this went, ns since the epoch */
    cutoff: ns('cutoff'),
    polls: integer('polls').notNull(),
    samples: integer('samples').notNull(),
    /** bytes of the file's pages freed (reused by later writes; `db vacuum` gives them back) */
    bytes: integer('bytes').notNull(),
    durationMs: integer('duration_ms').notNull(),
  },
  (t) => [index('maintenance_log_by_time').on(t.at)],
);
