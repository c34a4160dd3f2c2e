/**
 * The schema of the `thresholds:` section of the config file: every key with its kind and
 * default, and `resolveThresholds` that checks a partial set and fills in the defaults.
 */
import { z } from 'zod';
import { parseFilterDuration } from '../../api/codec/duration.ts';
import { DEFAULT_THRESHOLDS as D, ThresholdError } from './thresholds.ts';

const S = 1_000_000_000n;

/** A positive duration as text (`30s`, `5m`, `1h`, `1d`), in nanoseconds. */
const duration = z.string({ error: 'must be a duration such as 30s, 5m, 1h or 1d' }).transform((v, ctx) => {
  const text = v.trim();
  const days = /^([0-9]+)d$/.exec(text);
  let ns: bigint;
  try {
    ns = days !== null ? BigInt(days[1] ?? '0') * 86_400n * S : parseFilterDuration(text);
  } catch {
    ctx.issues.push({
      code: 'custom',
      input: v,
      message: `invalid duration ${JSON.stringify(v)}: use a number with a unit (ms, s, m, h, d)`,
    });
    return z.NEVER;
  }
  if (ns <= 0n) {
    ctx.issues.push({ code: 'custom', input: v, message: 'must be greater than zero' });
    return z.NEVER;
  }
  return ns;
});

/** A count of things, at least 1. */
const count = z
  .number({ error: 'must be a whole number, at least 1' })
  .int({ error: 'must be a whole number, at least 1' })
  .min(1, {
    error: 'must be a whole number, at least 1',
  });

/** A multiplier, greater than 1. */
const factor = z
  .number({ error: 'must be a number greater than 1' })
  .gt(1, { error: 'must be a number greater than 1' });

/** A number of records (0 or more; as decimal text beyond 2^53). */
const notRecords = { error: 'must be a whole number of records (0 or more)' };
const records = z
  .union(
    [
      z.number(notRecords).int(notRecords).nonnegative(notRecords).max(Number.MAX_SAFE_INTEGER, notRecords),
      z.string(notRecords).regex(/^[0-9]+$/, notRecords),
    ],
    notRecords,
  )
  .transform((v) => BigInt(v));

/** A strict group of thresholds; absent, it takes every default. */
function group<S extends z.core.$ZodLooseShape>(shape: S) {
  const keys = Object.keys(shape).join(', ');
  return z
    .strictObject(shape, {
      error: (iss) =>
        iss.code === 'unrecognized_keys' ? `unknown key (expected one of: ${keys})` : 'must be a mapping (key: value)',
    })
    .readonly();
}

const thresholdsSchema = group({
  /** history read before `--since` to learn baselines (known clients, normal rates) */
  warmup: duration.default(D.warmup),
  collection: group({
    /** a gap is a pause longer than this many expected poll intervals */
    gapFactor: factor.default(D.collection.gapFactor),
  }).prefault({}),
  connections: group({
    /** window over which opens and closes are counted */
    stormWindow: duration.default(D.connections.stormWindow),
    /** fewest opens (or closes) in the window for a storm */
    stormMinOpens: count.default(D.connections.stormMinOpens),
    /** and at least this many times the principal's usual count */
    stormFactor: factor.default(D.connections.stormFactor),
    /** a client id vanishes when it had at least this many open connections */
    clientMinConnections: count.default(D.connections.clientMinConnections),
    /** a client id multiplies when its open connections reach this many times its usual count */
    clientMultiplyFactor: factor.default(D.connections.clientMultiplyFactor),
    /** ... and grow by at least this many */
    clientMultiplyMin: count.default(D.connections.clientMultiplyMin),
    /** fewest failed authentications in the window for a wave */
    authFailureMin: count.default(D.connections.authFailureMin),
    /** an in-flight request older than this is stuck */
    inFlightStuck: duration.default(D.connections.inFlightStuck),
    /** a broker dropping to zero open connections counts when it had at least this many */
    brokerMinConnections: count.default(D.connections.brokerMinConnections),
    /** a consumer group is idle when every connection has been idle this long */
    groupIdle: duration.default(D.connections.groupIdle),
  }).prefault({}),
  shadow: group({
    /** records of lag (per partition) above which a topic is lagging */
    lagRecords: records.default(D.shadow.lagRecords),
    /** estimated time lag growth over a run that makes the lag "growing" */
    lagGrowth: duration.default(D.shadow.lagGrowth),
    /** no replication progress for this long while the source moves: stopped */
    stopWindow: duration.default(D.shadow.stopWindow),
    /** source partition information older than this is stale */
    sourceStale: duration.default(D.shadow.sourceStale),
    /** trends: a lag below this many records (summed over the row) is never stalled or stopped */
    materialLag: records.default(D.shadow.materialLag),
    /** trends: a lag less than this far behind in time is never stalled or stopped */
    materialTimeLag: duration.default(D.shadow.materialTimeLag),
  }).prefault({}),
  iceberg: group({
    /** commit lag (records, per partition) above which a topic is lagging */
    commitLag: records.default(D.iceberg.commitLag),
    /** no commit for this long while translation advances: stalled */
    commitStall: duration.default(D.iceberg.commitStall),
    /** trends: a commit lag below this many records (summed over the row) is never stalled */
    materialLag: records.default(D.iceberg.materialLag),
  }).prefault({}),
});

/** Every threshold, durations in nanoseconds: what the schema gives. */
export type Thresholds = z.output<typeof thresholdsSchema>;

/**
 * Checks a partial thresholds object (as read from YAML: durations as strings such as `5m`) and
 * fills in the defaults; an unknown key or a bad value is a ThresholdError naming the key.
 */
export function resolveThresholds(partial: unknown = {}): Thresholds {
  if (partial === undefined || partial === null) return D;
  const r = thresholdsSchema.safeParse(partial);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const path =
    issue === undefined
      ? []
      : issue.code === 'unrecognized_keys'
        ? [...issue.path, ...issue.keys.slice(0, 1)]
        : issue.path;
  throw new ThresholdError(path.map(String).join('.'), issue?.message ?? 'is not valid');
}
