/**
 * `db check`: verifies every stored encoding the readers decode (SQLite's own pages, connection
 * chunks and frames, packed versions and entities, the string dictionary and documents, the
 * rows of small answers, requests and failure details, raw bodies) and lists what is damaged,
 * with the polls and times it covers. Read-only; each table is read in pages of rows.
 */
import { gunzipSync } from 'node:zlib';
import { parseJsonLossless } from '../../api/codec/lossless-json.ts';
import type { OperationName } from '../../api/schema/operations.ts';
import { ByteReader, textFromSql } from '../encoding/bytes.ts';
import { readChunk, readChunkGroup } from '../connections/chunk.ts';
import { HEAD_STRIDE, readHeadEntry } from '../connections/codec.ts';
import { CONNECTION_LAYOUTS } from '../connections/layouts.ts';
import { ConnPartsLoader } from '../connections/parts.ts';
import { hash52, Resolver } from '../encoding/dictionary.ts';
import { CorruptDataError, damaged } from '../errors.ts';
import type { FlightrecDb } from '../engines/open.ts';
import { createHistoryReader } from '../read/reader.ts';
import { decodeIdList } from '../encoding/sql-values.ts';

/** One damaged item: where it is, the polls (and times) it covers, and what is wrong. */
export interface Damage {
  readonly table: string;
  /** the damaged item within the table (a batch and connection, a version id, a dictionary id) */
  readonly item: string;
  /** first and last poll whose reads meet it (absent when it is not tied to polls) */
  readonly polls?: { readonly first: number; readonly last: number; readonly from?: bigint; readonly to?: bigint };
  readonly reason: string;
}

/** What `db check` found. */
export interface StoreCheck {
  /** items verified per table */
  readonly checked: Record<string, number>;
  readonly damage: Damage[];
  /** true when the listing stopped at the limit */
  readonly truncated: boolean;
  /** what was not checked, and why (on PostgreSQL: the server's own pages) */
  readonly notes: readonly string[];
}

/** Rows read per query (keyset pages). */
const PAGE = 256;
/** Damaged items listed at most (the rest are counted, not described). */
const MAX_DAMAGE = 1000;
/** Largest raw body a poll_raw row may inflate to. */
const MAX_RAW_BYTES = 2 ** 30;

type Row = unknown[];

/** Verifies every stored encoding of an open database (read-only) and lists the damage. */
export function checkStore(db: FlightrecDb): StoreCheck {
  const sqlite = db.sqlite;
  const checked: Record<string, number> = {};
  const damage: Damage[] = [];
  let truncated = false;
  const found = (d: Damage): void => {
    if (damage.length < MAX_DAMAGE) damage.push(d);
    else truncated = true;
  };
  const count = (table: string, n = 1): void => {
    checked[table] = (checked[table] ?? 0) + n;
  };
  const pollTime = sqlite.prepare('SELECT started_at FROM poll WHERE id = ?').pluck().safeIntegers();
  const timeOf = (poll: number): bigint | undefined => {
    try {
      return pollTime.get(poll) as bigint | undefined;
    } catch {
      return undefined;
    }
  };
  const span = (first: number, last: number): Damage['polls'] => {
    const from = timeOf(first);
    const to = timeOf(last);
    return { first, last, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
  };
  const reasonOf = (err: unknown): string => {
    const e = damaged(err);
    return e instanceof CorruptDataError ? e.reason : e instanceof Error ? e.message : String(e);
  };
  /** Pages through a table by an integer key; a page SQLite cannot read is damage of the whole rest of the table. */
  const pages = (table: string, sql: string, each: (row: Row) => void, page?: (rows: Row[]) => void): void => {
    let after = -1;
    for (;;) {
      let rows: Row[];
      try {
        rows = sqlite.prepare(`${sql} LIMIT ${PAGE}`).raw().all(after) as Row[];
      } catch (err) {
        found({ table, item: after < 0 ? 'its rows' : `rows after key ${after}`, reason: reasonOf(err) });
        return;
      }
      page?.(rows);
      for (const row of rows) {
        each(row);
        count(table);
      }
      if (rows.length < PAGE) return;
      after = Number(rows.at(-1)![0]);
    }
  };

  /** Runs one part of the check; what SQLite cannot read there is damage of that table, and the check goes on. */
  const section = (table: string, fn: () => void, item = 'the table'): void => {
    try {
      fn();
    } catch (err) {
      found({ table, item, reason: reasonOf(err) });
    }
  };

  const batches = new Map<number, { first: number; last: number; frames: number }>();
  const notes: string[] = [];
  const run = (): void => {
    // the engine's own pages and indexes first (SQLite's messages name tables and pages; on
    // PostgreSQL they are the server's: flightrec checks what it stored, and says so in a note)
    try {
      const own = db.engine.integrityCheck();
      if ('note' in own) notes.push(own.note);
      else {
        for (const p of own.problems) found({ table: 'sqlite', item: 'the file', reason: p });
        count('sqlite file');
      }
    } catch (err) {
      found({ table: 'sqlite', item: 'the file', reason: reasonOf(err) });
    }

    pages('conn_batch', 'SELECT id, first_poll, last_poll, frames FROM conn_batch WHERE id > ? ORDER BY id', (r) => {
      batches.set(Number(r[0]), { first: Number(r[1]), last: Number(r[2]), frames: Number(r[3]) });
    });

    // chunks: every group's directory, then every chunk decoded to its exact end
    section('conn_chunk', () => checkChunks());
    const versionOf = new Map<number, number>();
    section('conn_version', () => checkVersions(versionOf));
    section('conn_frame', () => checkFrames(versionOf));
    section('str', () => checkTexts());
    section('poll', () => checkPolls());
  };

  const checkChunks = (): void => {
    const chunkPage = sqlite
      .prepare(
        `SELECT batch, first_entity, data FROM conn_chunk WHERE batch > ? OR (batch = ? AND first_entity > ?)
       ORDER BY batch, first_entity LIMIT ${PAGE}`,
      )
      .raw();
    let at: [number, number] = [-1, -1];
    // the groups of a batch are read as one ascending list: the last connection of the group before
    let before = { batch: -1, last: -1 };
    for (;;) {
      let rows: Row[];
      try {
        rows = chunkPage.all(at[0], at[0], at[1]) as Row[];
      } catch (err) {
        found({ table: 'conn_chunk', item: `rows after batch ${at[0]}`, reason: reasonOf(err) });
        break;
      }
      for (const [b, firstEntity, data] of rows as [number, number, Uint8Array][]) {
        count('conn_chunk');
        const batch = batches.get(b);
        let entity = -1;
        try {
          if (!(data instanceof Uint8Array)) throw new Error('the chunk group is not a blob');
          const g = readChunkGroup(data);
          if (g.entities[0] !== firstEntity)
            throw new Error(`the group starts at connection ${g.entities[0]}, its key says ${firstEntity}`);
          const previous = before.batch === b ? before.last : -1;
          before = { batch: b, last: g.entities.at(-1) ?? firstEntity };
          if (firstEntity <= previous)
            throw new Error(`the group before ends at connection ${previous}, past this group's first ${firstEntity}`);
          for (let k = 0; k < g.entities.length; k++) {
            entity = g.entities[k]!;
            if (k > 0 && entity <= g.entities[k - 1]!) throw new Error('connections out of order');
            g.reader.pos = g.starts[k]!;
            const c = readChunk(g.reader);
            for (const s of c.samples) if (s.extra !== undefined) parseJsonLossless(s.extra);
            const end = k + 1 < g.starts.length ? g.starts[k + 1]! : data.length;
            if (g.reader.pos !== end)
              throw new Error(`the chunk ends at byte ${g.reader.pos}, its directory says ${end}`);
            const lastSeq = c.seqs.at(-1) ?? -1;
            if (batch !== undefined && lastSeq >= batch.frames)
              throw new Error(`a sample at frame ${lastSeq} of a ${batch.frames}-frame batch`);
          }
        } catch (err) {
          const item =
            entity < 0 ? `batch ${b}, group from connection ${firstEntity}` : `batch ${b}, connection ${entity}`;
          // the polls' times only for damage: looked up for every chunk, they were most of the check's round trips on PostgreSQL
          const polls = batch === undefined ? undefined : span(batch.first, batch.last);
          found({ table: 'conn_chunk', item, ...(polls === undefined ? {} : { polls }), reason: reasonOf(err) });
        }
      }
      if (rows.length < PAGE) break;
      const last = rows.at(-1)!;
      at = [Number(last[0]), Number(last[1])];
    }
  };

  /** Versions and entities: decoded and resolved through the readers' own loader, in pages. */
  const checkVersions = (versionOf: Map<number, number>): void => {
    const resolver = new Resolver(sqlite);
    try {
      // the versions' names at once (a small dictionary), not one round trip each on PostgreSQL
      resolver.preload();
    } catch {
      // a dictionary SQLite cannot read whole: each name is read alone, and the damage named where it is met
    }
    const keep = (r: Row): void => void versionOf.set(Number(r[0]), Number(r[1]));
    pages('conn_version', 'SELECT id, entity FROM conn_version WHERE id > ? ORDER BY id', keep);
    // the packed-records layout keeps a connection's first version in its entity row, under the entity's id (drizzle/pg/0010)
    const inEntityRows = CONNECTION_LAYOUTS[db.engine.connectionLayout].versionsInEntityRowsSql;
    if (inEntityRows !== undefined) pages('conn_version', inEntityRows, keep);
    const ids = [...versionOf.keys()];
    for (let i = 0; i < ids.length; i += PAGE) {
      const slice = ids.slice(i, i + PAGE);
      try {
        new ConnPartsLoader(db, resolver).byIds(slice);
      } catch {
        // one by one, to name each damaged version
        for (const id of slice) {
          try {
            new ConnPartsLoader(db, resolver).byIds([id]);
          } catch (err) {
            if (unreadable(err)) {
              // a page SQLite cannot read: one entry for the slice, not one per version
              found({ table: 'conn_version', item: `versions ${slice[0]} to ${slice.at(-1)}`, reason: reasonOf(err) });
              break;
            }
            found({
              table: 'conn_version',
              item: `version ${id} of connection ${versionOf.get(id)}`,
              reason: reasonOf(err),
            });
          }
        }
      }
    }
  };

  /** Frames: the version list, and the head samples while their batch is open. */
  const checkFrames = (versionOf: ReadonlyMap<number, number>): void => {
    pages(
      'conn_frame',
      'SELECT poll, batch, seq, rows, versions, head FROM conn_frame WHERE poll > ? ORDER BY poll',
      (r) => {
        const [poll, b, seq, rows, versions, head] = r as [
          number,
          number,
          number,
          number,
          Uint8Array,
          Uint8Array | null,
        ];
        try {
          const list = decodeIdList(versions, rows);
          const batch = batches.get(b);
          if (batch === undefined) throw new Error(`batch ${b} is missing`);
          if (!(seq >= 0 && seq < batch.frames)) throw new Error(`frame ${seq} of a ${batch.frames}-frame batch`);
          if (head !== null) checkHead(head, list, versionOf);
          else for (const id of list) if (!versionOf.has(id)) throw new Error(`version ${id} is missing`);
        } catch (err) {
          found({ table: 'conn_frame', item: `poll ${poll}`, polls: span(poll, poll), reason: reasonOf(err) });
        }
      },
    );
  };

  /** The dictionary and documents: each text against its stored hash. */
  const checkTexts = (): void => {
    for (const [table, column] of [
      ['str', 's'],
      ['doc', 'body'],
    ] as const) {
      pages(table, `SELECT id, h, ${column} FROM ${table} WHERE id > ? ORDER BY id`, (r) => {
        try {
          const text = textFromSql(r[2]);
          if (hash52(text) !== Number(r[1])) throw new Error('the text does not match its stored hash');
          if (table === 'doc') parseJsonLossless(text);
        } catch (err) {
          found({ table, item: `id ${r[0]}`, reason: reasonOf(err) });
        }
      });
    }
  };

  /** Polls: requests and details; every answer but the connections (checked above) rebuilt as a reader would; raw bodies. */
  const checkPolls = (): void => {
    const reader = createHistoryReader(db);
    pages(
      'poll',
      'SELECT id, operation, ok, request, details, extra FROM poll WHERE id > ? ORDER BY id',
      (r) => {
        const [id, op, ok, request, details, extra] = r as [
          number,
          OperationName,
          number,
          string,
          string | null,
          string | null,
        ];
        try {
          parseJsonLossless(request);
          if (details !== null) parseJsonLossless(details);
          if (extra !== null) parseJsonLossless(extra);
          if (op !== 'ListKafkaConnections' || ok !== 1) reader.reconstructAnswer(BigInt(id));
        } catch (err) {
          const e = damaged(err);
          const table = e instanceof CorruptDataError && e.site.table !== undefined ? e.site.table : 'poll';
          found({ table, item: `poll ${id} (${op})`, polls: span(id, id), reason: reasonOf(err) });
        }
      },
      (rows) =>
        // the page's answers are rebuilt below: their rows are read for the whole page at once (not one poll at a time)
        reader.readAhead(
          rows
            .filter((r) => r[1] !== 'ListKafkaConnections' || r[2] !== 1)
            .map((r) => ({ id: Number(r[0]), operation: String(r[1]) })),
        ),
    );
    pages('poll_raw', 'SELECT poll_id, body FROM poll_raw WHERE poll_id > ? ORDER BY poll_id', (r) => {
      try {
        gunzipSync(r[1] as Uint8Array, { maxOutputLength: MAX_RAW_BYTES });
      } catch (err) {
        found({
          table: 'poll_raw',
          item: `poll ${r[0]}`,
          polls: span(Number(r[0]), Number(r[0])),
          reason: reasonOf(err),
        });
      }
    });
  };
  // one snapshot: a collector writing meanwhile does not make references look broken
  section('sqlite', () => (sqlite.inTransaction ? run() : sqlite.transaction(run).deferred()), 'the file');
  return { checked, damage, truncated, notes };
}

/** True when SQLite itself could not read a page (as opposed to bytes that do not decode). */
function unreadable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return true;
  }
  return false;
}

/** A head blob: every entry decoded, of the frame's connections, then the offset table and the count. */
function checkHead(head: Uint8Array, versions: readonly number[], entityOf: ReadonlyMap<number, number>): void {
  const r = new ByteReader(head);
  const rows = versions.length;
  const strides = Math.ceil(rows / HEAD_STRIDE);
  const table = head.length - 4 - 4 * strides;
  if (table < 0) throw new Error(`a ${head.length}-byte head cannot hold ${rows} rows`);
  for (let i = 0; i < rows; i++) {
    if (i % HEAD_STRIDE === 0 && r.u32At(table + 4 * (i / HEAD_STRIDE)) !== r.pos)
      throw new Error(`the offset of row ${i} is wrong`);
    const e = readHeadEntry(r);
    const entity = entityOf.get(versions[i]!);
    if (entity === undefined) throw new Error(`version ${versions[i]} is missing`);
    if (e.entity !== entity) throw new Error(`row ${i} belongs to connection ${e.entity}, its version to ${entity}`);
    if (r.pos > table) throw new Error(`row ${i} runs into the offset table`);
  }
  if (r.pos !== table) throw new Error(`the rows end at byte ${r.pos}, the offset table starts at ${table}`);
  if (r.u32At(head.length - 4) !== rows)
    throw new Error(`the head counts ${r.u32At(head.length - 4)} rows, the frame ${rows}`);
}
