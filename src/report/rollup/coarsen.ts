/**
 * Coarser rollups from finer ones (1 hour from 5 minutes): counts and increases add up, minima
 * and maxima combine, the last values are those of the last finer bucket that saw a poll.
 */
import type { RollupBatch, RollupConnRow, RollupIcebergRow, RollupShadowRow } from '../../db/rollups/rollup-store.ts';

const groupOf = (c: RollupConnRow): string =>
  JSON.stringify([c.nodeId, c.listener, c.principal, c.clientId, c.software]);

/** Combines the finer rows of one coarse bucket starting at `start` into one bucket. */
export function coarsen(fine: RollupBatch, start: bigint): RollupBatch {
  let connPolls = 0;
  let firstPoll: bigint | undefined;
  let lastPoll: bigint | undefined;
  let lastPolled: bigint | undefined;
  for (const b of fine.buckets) {
    connPolls += b.connPolls;
    if (b.firstPoll !== undefined && (firstPoll === undefined || b.firstPoll < firstPoll)) firstPoll = b.firstPoll;
    if (b.lastPoll !== undefined && (lastPoll === undefined || b.lastPoll > lastPoll)) lastPoll = b.lastPoll;
    if (b.connPolls > 0 && (lastPolled === undefined || b.start > lastPolled)) lastPolled = b.start;
  }
  const polled = new Set(fine.buckets.filter((b) => b.connPolls > 0).map((b) => b.start));

  const conns = new Map<string, RollupConnRow & { seen: number }>();
  for (const c of fine.conns) {
    const k = groupOf(c);
    const g = conns.get(k);
    const last = c.start === lastPolled ? c.openLast : 0;
    if (g === undefined) {
      conns.set(k, { ...c, start, openLast: last, seen: polled.has(c.start) ? 1 : 0 });
      continue;
    }
    conns.set(k, {
      ...g,
      openMin: Math.min(g.openMin, c.openMin),
      openMax: Math.max(g.openMax, c.openMax),
      openLast: c.start === lastPolled ? c.openLast : g.openLast,
      openSum: g.openSum + c.openSum,
      opened: g.opened + c.opened,
      closed: g.closed + c.closed,
      authFailures: g.authFailures + c.authFailures,
      resets: g.resets + c.resets,
      produceBytes: g.produceBytes + c.produceBytes,
      produceBatches: g.produceBatches + c.produceBatches,
      fetchBytes: g.fetchBytes + c.fetchBytes,
      requests: g.requests + c.requests,
      seen: g.seen + (polled.has(c.start) ? 1 : 0),
    });
  }
  // a group absent from a polled finer bucket had no open connection there
  const connRows = [...conns.values()].map(({ seen, ...c }) => (seen < polled.size ? { ...c, openMin: 0 } : c));

  const shadow = new Map<string, RollupShadowRow>();
  for (const s of fine.shadow) {
    const k = JSON.stringify([s.link, s.topic, s.partition]);
    const g = shadow.get(k);
    if (g === undefined) {
      shadow.set(k, { ...s, start });
      continue;
    }
    shadow.set(k, {
      ...s,
      start,
      lagMin: s.lagMin < g.lagMin ? s.lagMin : g.lagMin,
      lagMax: s.lagMax > g.lagMax ? s.lagMax : g.lagMax,
      progress: g.progress + s.progress,
    });
  }

  const iceberg = new Map<string, RollupIcebergRow>();
  for (const i of fine.iceberg) {
    const g = iceberg.get(i.topic);
    if (g === undefined) {
      iceberg.set(i.topic, { ...i, start });
      continue;
    }
    iceberg.set(i.topic, {
      ...i,
      start,
      lagMin: i.lagMin < g.lagMin ? i.lagMin : g.lagMin,
      lagMax: i.lagMax > g.lagMax ? i.lagMax : g.lagMax,
    });
  }
  return {
    buckets: [{ start, connPolls, firstPoll, lastPoll }],
    conns: connRows,
    shadow: [...shadow.values()],
    iceberg: [...iceberg.values()],
  };
}
