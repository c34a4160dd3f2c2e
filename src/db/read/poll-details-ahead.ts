/**
 * What reconstructing a poll's answer reads besides its rows (the poll, its request and details,
 * whether it kept a raw body), read for many announced polls at once: one statement each for a
 * batch of polls instead of three per poll (on PostgreSQL each is a round trip). A poll not
 * announced is read alone, as before. Raw bodies themselves are still read one by one (they may
 * be large): only the polls known to keep none skip that read.
 */
import type { PollInfo, PollQueries } from './poll-rows.ts';
import type { SqlSession, SqlStatement } from '../sql-session.ts';

/** Polls whose details one batch reads. */
const DETAILS_AHEAD = 256;
/** Polls whose details one statement of `pin` reads. */
const PIN_CHUNK = 4096;
/** Polls `pin` holds at most: the others are read as before, a batch at a time. */
const MAX_PINNED = 32_768;

/** A poll's request and failure details as reconstruct reads them. */
export interface PollDetail {
  readonly details: string | null;
  readonly path: string | null;
  readonly request: string;
}

/** The poll rows, details and raw-body presence of announced polls. */
export class PollDetailsAhead {
  readonly #pq: PollQueries;
  readonly #details: SqlStatement<[string], PollDetail & { id: number }>;
  readonly #raws: SqlStatement<[string], number>;
  /** the polls announced, in order, and each one's place */
  #expected: readonly number[] = [];
  #place = new Map<number, number>();
  #infos = new Map<number, PollInfo>();
  #detail = new Map<number, PollDetail>();
  /** announced polls, and those of them that keep a raw body */
  #announced = new Set<number>();
  #withRaw = new Set<number>();
  /** what `pin` read: looked at first, kept across `read` until `unpin` */
  #pinned: { infos: Map<number, PollInfo>; detail: Map<number, PollDetail>; withRaw: Set<number> } | undefined;

  constructor(sqlite: SqlSession, pq: PollQueries) {
    this.#pq = pq;
    this.#details = sqlite.prepare<[string], PollDetail & { id: number }>(
      'SELECT id, details, path, request FROM poll WHERE id IN (SELECT value FROM json_each(?))',
    );
    this.#raws = sqlite
      .prepare<[string], number>('SELECT poll_id FROM poll_raw WHERE poll_id IN (SELECT value FROM json_each(?))')
      .pluck();
  }

  /** Announces the polls reconstructed next, in order (call in the read transaction that reconstructs them). */
  read(ids: readonly number[]): void {
    this.forget();
    this.#expected = ids;
    this.#place = new Map(ids.map((id, i) => [id, i]));
  }

  /**
   * Reads what reconstructing these polls needs now, PIN_CHUNK of them per statement, and keeps
   * it until `unpin` (call both in one read transaction: its snapshot keeps them right): for a
   * reader of many clusters' windows (fleet). What a batch cannot read, and the polls past
   * MAX_PINNED, are read as before.
   */
  pin(all: readonly number[]): void {
    const ids = all.slice(0, MAX_PINNED);
    const infos = new Map<number, PollInfo>();
    const detail = new Map<number, PollDetail>();
    const withRaw = new Set<number>();
    try {
      for (let i = 0; i < ids.length; i += PIN_CHUNK) {
        const part = ids.slice(i, i + PIN_CHUNK);
        const list = JSON.stringify(part);
        for (const [k, v] of this.#pq.byIds(part)) infos.set(k, v);
        for (const d of this.#details.all(list)) detail.set(Number(d.id), d);
        for (const r of this.#raws.all(list)) withRaw.add(Number(r));
      }
    } catch {
      return;
    }
    this.#pinned = { infos, detail, withRaw };
  }

  /** Drops what `pin` read. */
  unpin(): void {
    this.#pinned = undefined;
  }

  /** Reads what reconstructing the announced polls from `id` on needs, DETAILS_AHEAD of them, unless read. */
  #ensure(id: number): void {
    if (this.#announced.has(id) || this.#pinned?.infos.has(id) === true) return;
    const at = this.#place.get(id);
    if (at === undefined) return;
    const ids = this.#expected.slice(at, at + DETAILS_AHEAD);
    const list = JSON.stringify(ids);
    try {
      const infos = this.#pq.byIds(ids);
      const detail = new Map<number, PollDetail>();
      for (const d of this.#details.all(list)) detail.set(Number(d.id), d);
      const withRaw = new Set(this.#raws.all(list).map(Number));
      this.#infos = infos;
      this.#detail = detail;
      this.#withRaw = withRaw;
      this.#announced = new Set(ids);
    } catch {
      // what cannot be read in a batch is read poll by poll, and named there
      this.#clear();
    }
  }

  /** Forgets what was announced and read ahead. */
  forget(): void {
    this.#expected = [];
    this.#place = new Map();
    this.#clear();
  }

  #clear(): void {
    this.#infos = new Map();
    this.#detail = new Map();
    this.#withRaw = new Set();
    this.#announced = new Set();
  }

  /** The poll, when read ahead. */
  info(id: number): PollInfo | undefined {
    const pinned = this.#pinned?.infos.get(id);
    if (pinned !== undefined) return pinned;
    this.#ensure(id);
    return this.#infos.get(id);
  }

  /** Its request and details, when read ahead. */
  detail(id: number): PollDetail | undefined {
    const pinned = this.#pinned?.infos.has(id) === true ? this.#pinned.detail.get(id) : undefined;
    if (pinned !== undefined) return pinned;
    this.#ensure(id);
    return this.#detail.get(id);
  }

  /** True when the poll was read ahead and keeps no raw body (its raw read can be skipped). */
  knownWithoutRaw(id: number): boolean {
    const pinned = this.#pinned;
    if (pinned !== undefined && pinned.infos.has(id) && pinned.detail.has(id)) return !pinned.withRaw.has(id);
    this.#ensure(id);
    return this.#announced.has(id) && !this.#withRaw.has(id);
  }
}
