/**
 * Planning the ListKafkaConnections fan-out (pure). The server returns one page only, cut by a
 * memory budget; `totalSize` says how many rows matched. When rows < totalSize the collector
 * asks again per broker (`node_id = N`), and for a broker still truncated per shard
 * (`shard_id = S`), then records how much of the total it reached. A slice asks for as many
 * rows as the server said match (its `totalSize`), not the configured page size: with the
 * server's default page (1000) a broker's shard can hold more than a page and its surplus would
 * never be listed, while the server's memory budget is sized to list a whole broker.
 */

/** One slice of the connection list: the filter to send and what it narrows to. */
export interface Slice {
  /** the full filter sent (the configured filter AND the slice clause) */
  readonly filter: string;
  /** the slice clause alone, e.g. `node_id = 3` or `node_id = 3 AND shard_id = 1` */
  readonly clause: string;
  readonly nodeId: number;
  readonly shardId?: number;
}

/** What the collector remembers about a cluster's topology between rounds. */
export interface Topology {
  /** brokers seen in upgrade members or in connections */
  readonly brokers: Set<number>;
  /** shards seen per broker, from connections */
  readonly shards: Map<number, Set<number>>;
  /** how large the listing was: what the next round's first call asks for (firstPageSize) */
  readonly listing: ListingSize;
}

/** The size of the connection listing as the last rounds saw it. */
export interface ListingSize {
  /** the rows of the last first call asked with the configured page size, when the server cut it (undefined: not cut, or not known) */
  cutAt: number | undefined;
  /** the totalSize of the last successful first call */
  total: bigint;
}

/** An empty topology. */
export function emptyTopology(): Topology {
  return { brokers: new Set(), shards: new Map(), listing: { cutAt: undefined, total: 0n } };
}

/**
 * The pageSize of a round's first call, the one that fixes the total. Its rows are all listed
 * again by the broker slices whenever it is cut, so once a round saw the configured page cut and
 * the cluster still lists more rows than that page held, the first call asks for PROBE_PAGE_SIZE
 * rows: the total is all it is for (a tenth of a round's rows at 10,000 connections were decoded
 * and stored twice). A cluster that fits in a page gets the configured page, and one call; the
 * brokers to slice by are those learnt from earlier rounds and upgrade members (the poller asks
 * for a full page again after a round a probe left incomplete).
 */
export function firstPageSize(configured: number, listing: ListingSize): number {
  return listing.cutAt === undefined || listing.total <= BigInt(listing.cutAt) ? configured : PROBE_PAGE_SIZE;
}

/** The pageSize of a first call that only asks for the total (the server still lists that many rows). */
export const PROBE_PAGE_SIZE = 1;

/** Remembers what a successful first call of `pageSize` rows said about the listing's size. */
export function learnListing(
  listing: ListingSize,
  configured: number,
  pageSize: number,
  rowsReturned: number,
  totalSize: bigint,
): void {
  listing.total = totalSize;
  if (pageSize === configured) listing.cutAt = isTruncated(rowsReturned, totalSize) ? rowsReturned : undefined;
}

/** Adds the brokers and shards of a list of connections to the topology. */
export function learnFromConnections(topo: Topology, rows: readonly { nodeId: number; shardId: number }[]): void {
  for (const row of rows) {
    topo.brokers.add(row.nodeId);
    let shards = topo.shards.get(row.nodeId);
    if (shards === undefined) topo.shards.set(row.nodeId, (shards = new Set()));
    shards.add(row.shardId);
  }
}

/** Adds the members of an upgrade status to the known brokers. */
export function learnFromMembers(topo: Topology, members: readonly { nodeId: number }[]): void {
  for (const m of members) topo.brokers.add(m.nodeId);
}

/** True when an answer holds fewer rows than matched: the list was cut. */
export function isTruncated(rowsReturned: number, totalSize: bigint): boolean {
  return BigInt(rowsReturned) < totalSize;
}

/** The largest pageSize the wire allows (int32). */
export const MAX_PAGE_SIZE = 2_147_483_647;

/**
 * The pageSize of a slice: the rows the wider call said match (`totalSize`, with an eighth more
 * for connections opened in between), never below the configured page size nor above int32. The
 * server still cuts the answer to its memory budget; then the next, narrower slices run.
 */
export function slicePageSize(configured: number, matched: bigint): number {
  const wanted = matched + matched / 8n + 16n;
  const capped = wanted > BigInt(MAX_PAGE_SIZE) ? MAX_PAGE_SIZE : Number(wanted);
  return Math.max(configured, capped);
}

/** Joins the configured filter and a slice clause with the server's ` AND `. */
export function combineFilter(base: string, clause: string): string {
  const b = base.trim();
  if (b === '') return clause;
  if (clause === '') return b;
  return `${b} AND ${clause}`;
}

/** One slice per known broker, in ascending node id order. */
export function planNodeSlices(baseFilter: string, brokers: Iterable<number>): Slice[] {
  return [...new Set(brokers)]
    .sort((a, b) => a - b)
    .map((nodeId) => {
      const clause = `node_id = ${nodeId}`;
      return { filter: combineFilter(baseFilter, clause), clause, nodeId };
    });
}

/** Shard numbers below the highest one seen that are asked for even when no connection named them. */
export const MAX_SHARD_FILL = 256;
/** The most shard slices planned for one broker in one round. */
export const MAX_SHARD_SLICES = 1024;

/**
 * One slice per shard of a broker still truncated: the shards seen for it, plus every shard
 * number below the highest one seen (a shard without a listed connection may still have some).
 */
export function planShardSlices(baseFilter: string, nodeId: number, knownShards: Iterable<number>): Slice[] {
  // shard ids come from the cluster's answers (uint32): a hostile or broken answer naming shard
  // 4294967295 must not plan four billion calls; fill the gaps below the highest shard seen only
  // up to MAX_SHARD_FILL, and never plan more than MAX_SHARD_SLICES slices for one broker
  const seen = new Set([...knownShards].filter((s) => Number.isInteger(s) && s >= 0));
  let max = 0;
  for (const s of seen) if (s > max) max = s;
  for (let s = 0; s <= Math.min(max, MAX_SHARD_FILL - 1); s++) seen.add(s);
  return [...seen]
    .sort((a, b) => a - b)
    .slice(0, MAX_SHARD_SLICES)
    .map((shardId) => {
      const clause = `node_id = ${nodeId} AND shard_id = ${shardId}`;
      return { filter: combineFilter(baseFilter, clause), clause, nodeId, shardId };
    });
}

/** The coverage a round reached: distinct rows gathered against the first call's totalSize. */
export interface RoundCoverage {
  readonly rowsCovered: number;
  readonly totalSize: bigint;
  readonly calls: number;
  /** true when every matching row was gathered (or the first call was not truncated) */
  readonly complete: boolean;
  /** when incomplete: the last answer the server cut (fewer rows than matched) that no narrower slice followed */
  readonly cut?: CutSlice;
}

/** An answer the server cut: its slice clause ('' unsliced), the page asked, the rows given and matched. */
export interface CutSlice {
  readonly slice: string;
  readonly pageSize: number;
  readonly rowsReturned: number;
  readonly totalSize: bigint;
}

/** Tracks the distinct connections gathered over the calls of one round. */
export class CoverageTracker {
  readonly #uids = new Set<string>();
  #total: bigint | undefined;
  #calls = 0;
  #cut: CutSlice | undefined;

  /** Counts one call and the rows it returned; the first successful call fixes the total. */
  add(rows: readonly { uid: string }[], totalSize: bigint, slice = '', pageSize = 0): void {
    this.#calls++;
    if (this.#total === undefined) this.#total = totalSize;
    for (const r of rows) this.#uids.add(r.uid);
    // a narrower slice of the last cut answer asks for its rest: that cut is being made up for
    if (this.#cut !== undefined && slice.startsWith(this.#cut.slice) && slice !== this.#cut.slice)
      this.#cut = undefined;
    if (isTruncated(rows.length, totalSize)) this.#cut = { slice, pageSize, rowsReturned: rows.length, totalSize };
  }

  /** Counts a failed call (it adds no rows). */
  addFailure(): void {
    this.#calls++;
  }

  /** Number of calls counted so far. */
  get calls(): number {
    return this.#calls;
  }

  /** The coverage so far. */
  result(): RoundCoverage {
    const total = this.#total ?? 0n;
    const rowsCovered = this.#uids.size;
    const complete = this.#total !== undefined && BigInt(rowsCovered) >= total;
    return {
      rowsCovered,
      totalSize: total,
      calls: this.#calls,
      complete,
      ...(complete || this.#cut === undefined ? {} : { cut: this.#cut }),
    };
  }
}
