/**
 * Reading connections back: a frame's rows in answer order (slow parts from versions, fast
 * values from the head blob or the batch's chunks), one connection's history, SQL pre-filters.
 */
import type { SqlSession, SqlStatement } from '../sql-session.ts';
import type { EngineSession, StoreSession } from '../engines/store-engine.ts';
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { ByteReader } from '../encoding/bytes.ts';
import { HEAD_STRIDE, readHeadEntry, sampleSlot, type FastSample } from './codec.ts';
import { buildConnection } from './rows.ts';
import {
  chunkIn,
  chunkOf,
  readBatchChunks,
  readChunk,
  readChunkGroup,
  readSampleAt,
  type BatchChunks,
} from './chunk.ts';
import type { ConnParts, ConnPartsLoader } from './parts.ts';
import { CONNECTION_LAYOUTS } from './layouts.ts';
import type { UidMatch } from './uid-match.ts';
import { damaged, decoding } from '../errors.ts';
import type { connChunk } from '../schema/schema-custom.ts';
import type { connFrame } from '../schema/schema.ts';
import { decodeIdList } from '../encoding/sql-values.ts';
import { IdVerdicts } from '../encoding/id-verdicts.ts';
import type { RowOf, SafeIntegers } from '../schema/table-rows.ts';

/** The largest version id a verdict is kept for (IdVerdicts' limit). */
const MAX_ROW_ID = 0xffffffff;

/** A stored frame (one successful ListKafkaConnections answer). */
export interface Frame {
  readonly poll: number;
  readonly batch: number;
  readonly seq: number;
  readonly rows: number;
  readonly totalSize: bigint;
  /** a uid appears more than once */
  readonly dupUids: boolean;
  readonly versions: Buffer;
  readonly head: Buffer | null;
}

/** A SQL pre-filter over the connection columns (aliases `v` version, `e` entity). */
export interface Prefilter {
  readonly where: string;
  readonly params: readonly unknown[];
}

/** A sealed batch being scanned: its chunk directory, and the chunks decoded so far. */
interface DecodedBatch {
  readonly batch: number;
  readonly directory: BatchChunks;
  readonly chunks: Map<number, { seqs: number[]; samples: FastSample[] } | undefined>;
}

/** Reads connection rows. */
export class ConnReader {
  readonly #sqlite: SqlSession;
  readonly #engine: EngineSession;
  readonly #parts: ConnPartsLoader;
  readonly #q;
  #decoded: DecodedBatch | undefined;
  readonly #filters = new Map<string, SqlStatement>();
  #verdicts: { readonly key: string; readonly pass: IdVerdicts } | undefined;

  /** how this store finds entities by uid (a column on SQLite, the packed record on PostgreSQL) */
  readonly #uid: UidMatch;

  constructor(store: StoreSession, parts: ConnPartsLoader) {
    const sqlite = store.sqlite;
    this.#sqlite = sqlite;
    this.#engine = store.engine;
    this.#parts = parts;
    this.#uid = CONNECTION_LAYOUTS[store.engine.connectionLayout].uid;
    this.#q = {
      frame: sqlite
        .prepare<[number], SafeIntegers<RowOf<typeof connFrame>>>(
          'SELECT poll, batch, seq, rows, total_size AS totalSize, dup_uids AS dupUids, versions, head FROM conn_frame WHERE poll = ?',
        )
        .safeIntegers(),
      batchChunks: sqlite
        .prepare<[number], Buffer | null>(CONNECTION_LAYOUTS[store.engine.connectionLayout].batchChunksSql)
        .pluck(),
      chunk: sqlite
        .prepare<[number, number], RowOf<typeof connChunk>['data']>(
          'SELECT data FROM conn_chunk WHERE batch = ? AND first_entity <= ? ORDER BY first_entity DESC LIMIT 1',
        )
        .pluck(),
      entities: sqlite
        .prepare<[number, ...unknown[]], [id: number, firstPoll: number, lastPoll: number]>(
          `SELECT id, first_poll, last_poll FROM conn_entity WHERE cluster_id = ? AND ${this.#uid.where} ORDER BY id`,
        )
        .raw(),
      history: sqlite
        .prepare<{ entity: number; cluster: number; lo: number; hi: number }, [batch: number, data: Buffer | null]>(
          `SELECT b.id, (SELECT c.data FROM conn_chunk c WHERE c.batch = b.id AND c.first_entity <= @entity
                         ORDER BY c.first_entity DESC LIMIT 1)
           FROM conn_batch b WHERE b.cluster_id = @cluster AND b.sealed = 1 AND b.last_poll >= @lo AND b.first_poll <= @hi
           ORDER BY b.id`,
        )
        .raw(),
      framesOfBatches: sqlite
        .prepare<[number, number], [batch: number, seq: number, poll: number]>(
          'SELECT batch, seq, poll FROM conn_frame WHERE batch BETWEEN ? AND ?',
        )
        .raw(),
      headFrames: sqlite
        .prepare<[number, number], [poll: number, rows: number, versions: Buffer, head: Buffer]>(
          `SELECT f.poll, f.rows, f.versions, f.head FROM conn_batch b JOIN conn_frame f ON f.batch = b.id
           WHERE b.cluster_id = ? AND b.sealed = 0 AND f.head IS NOT NULL AND f.poll >= ? ORDER BY f.poll`,
        )
        .raw(),
    };
  }

  /** The frame of a poll, or undefined (failed poll, or another operation). */
  frame(poll: number): Frame | undefined {
    const r = this.#q.frame.get(poll);
    if (r === undefined) return undefined;
    return {
      ...r,
      poll: Number(r.poll),
      batch: Number(r.batch),
      seq: Number(r.seq),
      rows: Number(r.rows),
      dupUids: r.dupUids !== 0n,
    };
  }

  /**
   * The version ids among `ids` whose slow parts pass a pre-filter. A version never changes, so
   * its verdict is remembered: scanning a range asks SQL only about versions not seen before.
   */
  passing(ids: readonly number[], pre: Prefilter): Set<number> {
    const verdicts = this.#verdictsOf(ids, pre);
    const out = new Set<number>();
    for (const id of ids) if (verdicts.get(id) === true) out.add(id);
    return out;
  }

  /** The verdicts of a pre-filter by version id, `ids` among them (passing). */
  #verdictsOf(ids: readonly number[], pre: Prefilter): IdVerdicts {
    const key = `${pre.where}\u0000${JSON.stringify(pre.params, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v))}`;
    if (this.#verdicts?.key !== key) this.#verdicts = { key, pass: new IdVerdicts() };
    const verdicts = this.#verdicts.pass;
    // the ids without a verdict, each once, now recorded as failing; an id no version can have (a
    // damaged list) gets no verdict, and its row does not pass
    const unknown = verdicts.claim(ids, MAX_ROW_ID);
    if (unknown.length > 0) {
      // the passing versions' parts are read with the verdicts (rows builds them next): one look-up of each row, not two
      const passed = this.#parts.loadPassing(unknown, pre.where, pre.params) ?? this.#passingIds(unknown, pre);
      for (const id of passed) verdicts.set(id, true);
    }
    return verdicts;
  }

  /** The version ids among `ids` that pass a pre-filter, from SQL (where the parts loader cannot test it). */
  #passingIds(ids: readonly number[], pre: Prefilter): number[] {
    let stmt = this.#filters.get(pre.where);
    if (stmt === undefined) {
      const sql = `SELECT v.id FROM json_each(?) j JOIN conn_version v ON v.id = j.value JOIN conn_entity e ON e.id = v.entity WHERE (${pre.where})`;
      stmt = this.#sqlite.prepare(sql).pluck();
      if (this.#filters.size > 32) this.#filters.clear();
      this.#filters.set(pre.where, stmt);
    }
    return stmt.all(JSON.stringify(ids), ...pre.params) as number[];
  }

  /** A frame's rows in answer order; with `pre`, only the rows whose slow parts pass it. */
  rows(f: Frame, pre?: Prefilter, reuseBatch = false): KafkaConnection[] {
    const ids = decodeIdList(f.versions, f.rows);
    const allowed = pre === undefined || pre.where === 'TRUE' ? undefined : this.#verdictsOf(ids, pre);
    // no version passes (a filter that matches nothing): no row to look at
    if (allowed !== undefined && allowed.passing === 0) return [];
    // keep: the kept positions, or undefined for every row (the unfiltered scan: no index arrays)
    let keep: number[] | undefined;
    let keptIds: readonly number[] = ids;
    if (allowed !== undefined) {
      keep = [];
      const kept: number[] = [];
      for (let i = 0; i < ids.length; i++) {
        if (allowed.get(ids[i]!) === true) {
          keep.push(i);
          kept.push(ids[i]!);
        }
      }
      keptIds = kept;
    }
    if (keptIds.length === 0) return [];
    // a sealed batch's chunk directory (#eachSample) is read while the versions are decoded
    const directory =
      f.head === null && (reuseBatch ? this.#decoded?.batch !== f.batch : keptIds.length >= 100)
        ? () => this.#engine.prefetch(this.#q.batchChunks, f.batch)
        : undefined;
    const parts = this.#parts.inOrder(keptIds, directory);
    const out = new Array<KafkaConnection>(parts.length);
    try {
      this.#eachSample(
        f,
        keep,
        parts,
        (k, entityOf, sample) => {
          const p = parts[k]!;
          if (entityOf !== undefined && entityOf !== p.entity)
            throw new Error(`poll ${f.poll}: row ${keep === undefined ? k : keep[k]} belongs to another connection`);
          out[k] = buildConnection(p, sample ?? missing(f, p.entity));
        },
        reuseBatch,
      );
    } catch (err) {
      if (f.head === null && this.#decoded?.batch === f.batch) this.#decoded = undefined;
      throw damaged(
        err,
        f.head !== null
          ? { table: 'conn_frame', poll: f.poll }
          : { table: 'conn_chunk', poll: f.poll, entity: `batch ${f.batch}` },
      );
    }
    return out;
  }

  /**
   * Calls `use` with the fast sample of each kept row (positions `keep`, ascending, or every row
   * when undefined; `parts[k]` is the k-th kept row's), from the head blob or the batch's chunks.
   * The sample's value array may be reused after `use` returns.
   */
  #eachSample(
    f: Frame,
    keep: readonly number[] | undefined,
    parts: readonly ConnParts[],
    use: (k: number, entity: number | undefined, sample: FastSample | undefined) => void,
    reuseBatch: boolean,
  ): void {
    const n = parts.length;
    if (f.head !== null) {
      const r = new ByteReader(f.head);
      if (keep === undefined) {
        for (let i = 0; i < n; i++) {
          const e = readHeadEntry(r);
          use(i, e.entity, e.sample);
        }
        return;
      }
      let k = 0;
      for (let i = 0; i < f.rows && k < n; i++) {
        const e = readHeadEntry(r);
        if (i === keep[k]) use(k++, e.entity, e.sample);
      }
      return;
    }
    if (reuseBatch) {
      const d = this.#batch(f.batch);
      const seq = f.seq;
      for (let k = 0; k < n; k++) {
        const entity = parts[k]!.entity;
        let c = d.chunks.get(entity);
        if (c === undefined && !d.chunks.has(entity)) {
          // decoded on first use: a filtered scan touches only the connections that pass
          const r = chunkIn(d.directory, entity);
          c = r === undefined ? undefined : readChunk(r);
          d.chunks.set(entity, c);
        }
        let at = -1;
        if (c !== undefined) {
          // seqs ascend; a connection listed in every frame of the batch has seqs[seq] === seq
          const seqs = c.seqs;
          at = seqs[seq] === seq ? seq : seqs.lastIndexOf(seq);
        }
        use(k, undefined, at < 0 ? undefined : c!.samples[at]);
      }
      return;
    }
    const slot = sampleSlot();
    let chunkFor: (entity: number) => ByteReader | undefined;
    if (n < 100) {
      chunkFor = (entity) => {
        const blob = this.#q.chunk.get(f.batch, entity);
        return blob === undefined ? undefined : chunkOf(readChunkGroup(blob), entity);
      };
    } else {
      const directory = this.#directory(f.batch);
      chunkFor = (entity) => chunkIn(directory, entity);
    }
    for (let k = 0; k < n; k++) {
      const r = chunkFor(parts[k]!.entity);
      use(k, undefined, r === undefined ? undefined : readSampleAt(r, f.seq, slot));
    }
  }

  /** The chunk directory of a sealed batch: all its chunk groups in one blob. */
  #directory(batch: number): BatchChunks {
    const blob = this.#q.batchChunks.get(batch);
    return readBatchChunks(blob ?? new Uint8Array(0));
  }

  #batch(batch: number): DecodedBatch {
    if (this.#decoded?.batch === batch) return this.#decoded;
    this.#decoded = { batch, directory: this.#directory(batch), chunks: new Map() };
    return this.#decoded;
  }

  /** Every sample of the connection(s) with this uid, as (poll id, row), in poll-id order. */
  history(clusterId: number, uid: string, fromPoll: number, toPoll: number): { poll: number; row: KafkaConnection }[] {
    const out: { poll: number; row: KafkaConnection }[] = [];
    for (const [entity, first, last] of this.#q.entities.all(clusterId, ...this.#uid.params(uid))) {
      const versions = this.#parts.allOfEntity(entity);
      if (versions.length === 0) continue;
      const lo = Math.max(first, fromPoll);
      const samples: { poll: number; sample: FastSample }[] = [];
      const chunks = this.#q.history.all({ entity, cluster: clusterId, lo, hi: Math.min(last, toPoll) });
      if (chunks.length > 0) {
        const seqPoll = new Map<string, number>();
        for (const [b, seq, poll] of this.#q.framesOfBatches.all(chunks[0]![0], chunks.at(-1)![0])) {
          seqPoll.set(`${b}:${seq}`, poll);
        }
        for (const [b, blob] of chunks) {
          const d = decoding({ table: 'conn_chunk', entity: `batch ${b}, connection ${entity}` }, () => {
            const r = blob === null ? undefined : chunkOf(readChunkGroup(blob), entity);
            return r === undefined ? undefined : readChunk(r);
          });
          if (d === undefined) continue;
          d.seqs.forEach((seq, k) => {
            const poll = seqPoll.get(`${b}:${seq}`);
            if (poll !== undefined && poll >= fromPoll && poll <= toPoll) samples.push({ poll, sample: d.samples[k]! });
          });
        }
      }
      this.#headSamples(clusterId, lo, toPoll, versions, entity, samples);
      for (const { poll, sample } of samples) {
        const p = versionAt(versions, poll);
        out.push({ poll, row: buildConnection(p, sample) });
      }
    }
    return out.sort((a, b) => a.poll - b.poll);
  }

  #headSamples(
    clusterId: number,
    from: number,
    to: number,
    versions: ConnParts[],
    entity: number,
    out: { poll: number; sample: FastSample }[],
  ): void {
    const mine = new Set(versions.map((v) => v.version));
    for (const [poll, rows, blob, head] of this.#q.headFrames.all(clusterId, from)) {
      if (poll > to) break;
      decoding({ table: 'conn_frame', poll }, () => {
        const ids = decodeIdList(blob, rows);
        const r = new ByteReader(head);
        const strides = Math.ceil(rows / HEAD_STRIDE);
        const table = head.length - 4 - 4 * strides;
        for (let i = 0; i < ids.length; i++) {
          if (!mine.has(ids[i]!)) continue;
          r.pos = r.u32At(table + 4 * Math.floor(i / HEAD_STRIDE));
          for (let skip = i % HEAD_STRIDE; skip > 0; skip--) readHeadEntry(r);
          const e = readHeadEntry(r);
          if (e.entity === entity) out.push({ poll, sample: e.sample });
        }
      });
    }
  }
}

function missing(f: Frame, entity: number): never {
  throw new Error(`connection ${entity} has no sample at poll ${f.poll}`);
}

/** The version of an entity in force at a poll (versions sorted by from_poll). */
function versionAt(versions: ConnParts[], poll: number): ConnParts {
  let found = versions[0]!;
  for (const v of versions) {
    if (v.fromPoll <= poll) found = v;
    else break;
  }
  return found;
}
