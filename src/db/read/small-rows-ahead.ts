/**
 * The per-poll rows of the small answers, read for many polls at once when the reader knows
 * which polls come next (a scan of a window, `db check`'s pages): one statement per table for
 * the next SMALL_ROWS_AHEAD polls instead of one per table and poll. On PostgreSQL each statement
 * is a round trip through the bridge; a timeline over a window of shadow-link polls made
 * thousands of them. A poll not announced, or rows the batch could not read, are read alone,
 * with the statement and the rows as before: the answers are the same either way.
 */
import type { OperationName } from '../../api/schema/operations.ts';
import type { SqlSession, SqlStatement } from '../sql-session.ts';

/** Polls whose rows one batch reads. */
export const SMALL_ROWS_AHEAD = 64;

/** Polls whose rows one statement of `pin` reads. */
const PIN_CHUNK = 1024;

/**
 * Rows `pin` holds at most: past it the polls not yet read are read as before, a batch at a time
 * (a window of many large answers must not be held whole).
 */
export const MAX_PINNED_ROWS = 200_000;

/** The per-poll tables of the small answers: columns, table and order of one poll's rows. */
const TABLES = {
  link: { cols: 'name, uid, state, configurations, synced_properties, sr_status', from: 'link_sample', order: '' },
  tasks: { cols: 'name, state, reason, broker_id, shard, unknown', from: 'shadow_task_sample', order: 'pos' },
  topics: {
    cols: 'pos, name, topic_id, source_topic_name, source_topic_id, state, unknown, link',
    from: 'shadow_topic_sample',
    order: 'pos',
  },
  partitions: {
    cols: 'topic_pos, partition_id, high_watermark, source_high_watermark, source_last_stable_offset, source_last_updated, unknown',
    from: 'shadow_partition_sample',
    order: 'topic_pos, pos',
  },
  upgrade: {
    cols: 'active_version, version_after_finalization, auto_finalization, state',
    from: 'upgrade_sample',
    order: '',
  },
  members: {
    cols: 'node_id, alive, logical_version, release_version, version_known, unknown',
    from: 'upgrade_member_sample',
    order: 'pos',
  },
  iceberg: { cols: 'reachable, error_code, error_message', from: 'iceberg_sample', order: '' },
  icebergTopics: { cols: 'pos, topic, lifecycle_state, unknown', from: 'iceberg_topic_sample', order: 'pos' },
  icebergPartitions: {
    cols: 'topic_pos, partition, commit_lag, last_committed_offset, last_translated_offset, unknown',
    from: 'iceberg_partition_sample',
    order: 'topic_pos, pos',
  },
} as const;

/** One of the per-poll tables of the small answers. */
export type SmallTable = keyof typeof TABLES;

/** The tables each small operation's answer is read from. */
const TABLES_OF: Record<Exclude<OperationName, 'ListKafkaConnections'>, readonly SmallTable[]> = {
  GetShadowLink: ['link', 'tasks', 'topics', 'partitions'],
  ListShadowTopics: ['topics', 'partitions'],
  GetShadowTopic: ['topics', 'partitions'],
  GetUpgradeStatus: ['upgrade', 'members'],
  GetIcebergStatus: ['iceberg', 'icebergTopics', 'icebergPartitions'],
};

/** A poll whose rows may be read next: its id and operation. */
export interface ExpectedPoll {
  readonly id: number;
  readonly operation: string;
}

type Row = unknown[];

/** Rows one batch read: by table, then poll. */
export type RowsRead = ReadonlyMap<SmallTable, ReadonlyMap<number, readonly Row[]>>;

/** The document ids the `link` rows of a batch name (configurations, synced properties, registry status). */
export function docIdsOf(read: RowsRead): number[] {
  const ids: number[] = [];
  for (const rows of read.get('link')?.values() ?? []) {
    for (const r of rows) for (let c = 3; c <= 5; c++) if (r[c] !== null && r[c] !== undefined) ids.push(Number(r[c]));
  }
  return ids;
}

/** Reads the rows of one poll of a table, from a batch over the polls announced when it holds them. */
export class SmallRowsAhead {
  readonly #one = new Map<SmallTable, SqlStatement<[number], Row>>();
  readonly #many = new Map<SmallTable, SqlStatement<[string], Row>>();
  readonly #sqlite: SqlSession;
  readonly #warm: (read: RowsRead) => void;
  /** the polls announced, in the order they will be read, and each one's place */
  #expected: readonly ExpectedPoll[] = [];
  #place = new Map<number, number>();
  /** rows read ahead, by table and poll (a poll needing the table and without rows has []) */
  #cache = new Map<SmallTable, Map<number, Row[]>>();
  /** rows read by `pin`, by table and poll: looked at first, kept across `expect` until `unpin` */
  #pinned = new Map<SmallTable, Map<number, Row[]>>();

  /**
   * `warm` runs after each batch with the rows it read: the reader loads the names and documents
   * the rows refer to there (its dictionary), in a few statements instead of one per row
   */
  constructor(sqlite: SqlSession, warm: (read: RowsRead) => void = () => undefined) {
    this.#sqlite = sqlite;
    this.#warm = warm;
  }

  /** Announces the polls whose rows are read next, in order (replaces what was announced). */
  expect(polls: readonly ExpectedPoll[]): void {
    this.#expected = polls;
    this.#place = new Map(polls.map((p, i) => [p.id, i]));
    this.#cache = new Map();
  }

  /** Forgets what was announced and read ahead (rows of pruned polls must not outlive them). */
  forget(): void {
    this.expect([]);
    this.unpin();
  }

  /**
   * Reads the rows of every table of these polls now, PIN_CHUNK polls per statement and table,
   * and keeps them until `unpin` (call both in one read transaction: its snapshot is what keeps
   * them right): for a reader of many clusters' windows (fleet), a few statements instead of some
   * per cluster, resource and batch. Rows a batch cannot read, and the polls past `maxRows` rows
   * held, are read as before.
   */
  pin(polls: readonly ExpectedPoll[], maxRows: number = MAX_PINNED_ROWS): void {
    const wanted = new Map<SmallTable, number[]>();
    for (const p of polls) {
      for (const t of TABLES_OF[p.operation as keyof typeof TABLES_OF] ?? []) {
        const list = wanted.get(t) ?? [];
        list.push(p.id);
        wanted.set(t, list);
      }
    }
    const pinned = new Map<SmallTable, Map<number, Row[]>>();
    let held = 0;
    try {
      for (const [table, ids] of wanted) {
        const byPoll = new Map<number, Row[]>();
        pinned.set(table, byPoll);
        // a chunk's polls are entered only with the chunk read whole: a poll not entered is read as before
        for (let i = 0; i < ids.length && held < maxRows; i += PIN_CHUNK) {
          const chunk = ids.slice(i, i + PIN_CHUNK);
          const got = new Map<number, Row[]>(chunk.map((id) => [id, []]));
          for (const r of this.#batch(table).iterate(JSON.stringify(chunk))) {
            got.get(Number(r[0]))?.push(r.slice(1));
            if (++held > maxRows) break; // this chunk is dropped whole below
          }
          if (held > maxRows) break;
          for (const [id, rows] of got) byPoll.set(id, rows);
        }
      }
    } catch {
      // each poll is read as before, and its own read says what is wrong
      return;
    }
    this.#pinned = pinned;
    try {
      this.#warm(pinned);
    } catch {
      // names the dictionary cannot give at once are read one by one, and their own read names the damage
    }
  }

  /** Drops what `pin` read. */
  unpin(): void {
    this.#pinned = new Map();
  }

  /** The rows of one poll of a table, in the order of its single-poll statement. */
  rows(table: SmallTable, poll: number): Row[] {
    const hit = this.#pinned.get(table)?.get(poll) ?? this.#cache.get(table)?.get(poll);
    if (hit !== undefined) return hit;
    const at = this.#place.get(poll);
    if (at !== undefined && this.#readAhead(at)) {
      const read = this.#cache.get(table)?.get(poll);
      if (read !== undefined) return read;
    }
    return this.#single(table).all(poll);
  }

  /** Reads the tables of the announced polls from `at` on, SMALL_ROWS_AHEAD of them; false when a batch failed. */
  #readAhead(at: number): boolean {
    const slice = this.#expected.slice(at, at + SMALL_ROWS_AHEAD);
    const wanted = new Map<SmallTable, number[]>();
    for (const p of slice) {
      for (const t of TABLES_OF[p.operation as keyof typeof TABLES_OF] ?? []) {
        if (this.#pinned.get(t)?.has(p.id) === true) continue;
        const list = wanted.get(t) ?? [];
        list.push(p.id);
        wanted.set(t, list);
      }
    }
    const cache = new Map<SmallTable, Map<number, Row[]>>();
    try {
      for (const [table, ids] of wanted) {
        const byPoll = new Map<number, Row[]>(ids.map((id) => [id, []]));
        for (const r of this.#batch(table).all(JSON.stringify(ids))) byPoll.get(Number(r[0]))?.push(r.slice(1));
        cache.set(table, byPoll);
      }
    } catch {
      // rows the batch cannot read (a damaged page): each poll is read alone, and its own read says what is wrong
      this.#cache = new Map();
      return false;
    }
    this.#cache = cache;
    try {
      this.#warm(cache);
    } catch {
      // names the dictionary cannot give at once are read one by one, and their own read names the damage
    }
    return true;
  }

  #single(table: SmallTable): SqlStatement<[number], Row> {
    let s = this.#one.get(table);
    if (s === undefined) {
      const { cols, from, order } = TABLES[table];
      s = this.#sqlite
        .prepare<[number], Row>(`SELECT ${cols} FROM ${from} WHERE poll = ?${order === '' ? '' : ` ORDER BY ${order}`}`)
        .raw()
        .safeIntegers();
      this.#one.set(table, s);
    }
    return s;
  }

  #batch(table: SmallTable): SqlStatement<[string], Row> {
    let s = this.#many.get(table);
    if (s === undefined) {
      const { cols, from, order } = TABLES[table];
      s = this.#sqlite
        .prepare<[string], Row>(
          `SELECT poll, ${cols} FROM ${from} WHERE poll IN (SELECT value FROM json_each(?))
           ORDER BY poll${order === '' ? '' : `, ${order}`}`,
        )
        .raw()
        .safeIntegers();
      this.#many.set(table, s);
    }
    return s;
  }
}
