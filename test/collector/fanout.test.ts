import { describe, expect, it } from 'vitest';
import {
  MAX_PAGE_SIZE,
  slicePageSize,
  combineFilter,
  CoverageTracker,
  emptyTopology,
  firstPageSize,
  isTruncated,
  learnListing,
  learnFromConnections,
  learnFromMembers,
  MAX_SHARD_FILL,
  MAX_SHARD_SLICES,
  planNodeSlices,
  planShardSlices,
  PROBE_PAGE_SIZE,
} from '../../src/collector/fanout.ts';

describe('connections fan-out planning', () => {
  it('detects truncation from totalSize', () => {
    expect(isTruncated(1000, 1500n)).toBe(true);
    expect(isTruncated(10, 10n)).toBe(false);
    expect(isTruncated(0, 0n)).toBe(false);
  });

  it('combines the configured filter with the slice clause', () => {
    expect(combineFilter('', 'node_id = 1')).toBe('node_id = 1');
    expect(combineFilter('state = KAFKA_CONNECTION_STATE_OPEN', 'node_id = 1')).toBe(
      'state = KAFKA_CONNECTION_STATE_OPEN AND node_id = 1',
    );
  });

  it('plans one slice per known broker, sorted and distinct', () => {
    const topo = emptyTopology();
    learnFromMembers(topo, [{ nodeId: 3 }, { nodeId: 1 }]);
    learnFromConnections(topo, [
      { nodeId: 2, shardId: 0 },
      { nodeId: 1, shardId: 3 },
    ]);
    expect(planNodeSlices('', topo.brokers).map((s) => s.clause)).toEqual([
      'node_id = 1',
      'node_id = 2',
      'node_id = 3',
    ]);
    expect(topo.shards.get(1)).toEqual(new Set([3]));
  });

  it('plans shard slices covering every shard up to the highest seen', () => {
    const slices = planShardSlices('client_id = "x"', 2, [3, 1]);
    expect(slices.map((s) => s.shardId)).toEqual([0, 1, 2, 3]);
    expect(slices[0]!.filter).toBe('client_id = "x" AND node_id = 2 AND shard_id = 0');
    expect(planShardSlices('', 5, []).map((s) => s.clause)).toEqual(['node_id = 5 AND shard_id = 0']);
  });

  it('tracks distinct rows against the first total', () => {
    const t = new CoverageTracker();
    t.add([{ uid: 'a' }, { uid: 'b' }], 4n);
    t.add([{ uid: 'b' }, { uid: 'c' }], 2n, 'node_id = 1', 2);
    expect(t.result()).toEqual({
      rowsCovered: 3,
      totalSize: 4n,
      calls: 2,
      complete: false,
    }); // the unsliced cut was followed by a narrower slice: not the reason
    const alone = new CoverageTracker();
    alone.add([{ uid: 'a' }], 2n); // no fan-out followed
    expect(alone.result().cut).toEqual({ slice: '', pageSize: 0, rowsReturned: 1, totalSize: 2n });
    t.add([{ uid: 'b' }], 3n, 'node_id = 2', 5);
    expect(t.result().cut).toEqual({ slice: 'node_id = 2', pageSize: 5, rowsReturned: 1, totalSize: 3n });
    t.add([{ uid: 'b' }], 1n, 'node_id = 2 AND shard_id = 0', 5); // the cut's rest was asked for, and complete
    expect(t.result().cut).toBeUndefined();
    t.add([{ uid: 'd' }], 1n);
    expect(t.result().complete).toBe(true);
  });
});

describe('shard slices from hostile shard ids', () => {
  it('never plans billions of calls for a shard id near 2^32', () => {
    const slices = planShardSlices('', 1, [0, 4294967295]);
    expect(slices.length).toBeLessThanOrEqual(MAX_SHARD_SLICES);
    expect(slices.map((s) => s.shardId)).toContain(4294967295);
    expect(slices.map((s) => s.shardId)).toContain(MAX_SHARD_FILL - 1);
  });
});

describe('the page size of a slice', () => {
  it('asks for the rows the wider call matched, with room for new ones', () => {
    expect(slicePageSize(0, 1300n)).toBe(1300 + 162 + 16);
    expect(slicePageSize(0, 0n)).toBe(16);
  });

  it('never asks for fewer than configured', () => {
    expect(slicePageSize(5000, 1300n)).toBe(5000);
  });

  it('stays within int32 for any uint64 totalSize, without going through a JS number', () => {
    expect(slicePageSize(0, 18_446_744_073_709_551_615n)).toBe(MAX_PAGE_SIZE);
    expect(slicePageSize(0, 2_147_483_647n)).toBe(MAX_PAGE_SIZE);
  });
});

describe('the page size of the first call', () => {
  it('asks for the configured page until a round saw it cut', () => {
    const { listing } = emptyTopology();
    expect(firstPageSize(0, listing)).toBe(0);
    learnListing(listing, 0, 0, 500, 500n); // fits in one page
    expect(firstPageSize(0, listing)).toBe(0);
  });

  it('asks only for the total while the listing is larger than the page that was cut', () => {
    const { listing } = emptyTopology();
    learnListing(listing, 0, 0, 1000, 10_000n);
    expect(firstPageSize(0, listing)).toBe(PROBE_PAGE_SIZE);
    learnListing(listing, 0, PROBE_PAGE_SIZE, 1, 10_500n); // a probe keeps what the full page said
    expect(listing).toEqual({ cutAt: 1000, total: 10_500n });
    expect(firstPageSize(0, listing)).toBe(PROBE_PAGE_SIZE);
  });

  it('goes back to the configured page once the listing fits in the page that was cut', () => {
    const { listing } = emptyTopology();
    learnListing(listing, 2000, 2000, 1500, 3000n); // the server cut the page to its memory budget
    expect(firstPageSize(2000, listing)).toBe(PROBE_PAGE_SIZE);
    learnListing(listing, 2000, PROBE_PAGE_SIZE, 1, 1500n);
    expect(firstPageSize(2000, listing)).toBe(2000);
    learnListing(listing, 2000, 2000, 1400, 1400n);
    expect(listing.cutAt).toBeUndefined();
    expect(firstPageSize(2000, listing)).toBe(2000);
  });
});
