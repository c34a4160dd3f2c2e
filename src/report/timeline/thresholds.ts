/**
 * Thresholds and windows of the timeline detectors: defaults, and `resolveThresholds` that
 * merges a partial set (the `thresholds:` section of the config file) and checks every key.
 */
import { parseFilterDuration } from '../../api/codec/duration.ts';

/** Every threshold, durations in nanoseconds. */
export interface Thresholds {
  /** history read before `--since` to learn baselines (known clients, normal rates) */
  readonly warmup: bigint;
  readonly collection: {
    /** a gap is a pause longer than this many expected poll intervals */
    readonly gapFactor: number;
  };
  readonly connections: {
    /** window over which opens and closes are counted */
    readonly stormWindow: bigint;
    /** fewest opens (or closes) in the window for a storm */
    readonly stormMinOpens: number;
    /** and at least this many times the principal's usual count */
    readonly stormFactor: number;
    /** a client id vanishes when it had at least this many open connections */
    readonly clientMinConnections: number;
    /** a client id multiplies when its open connections reach this many times its usual count */
    readonly clientMultiplyFactor: number;
    /** ... and grow by at least this many */
    readonly clientMultiplyMin: number;
    /** fewest failed authentications in the window for a wave */
    readonly authFailureMin: number;
    /** an in-flight request older than this is stuck */
    readonly inFlightStuck: bigint;
    /** a broker dropping to zero open connections counts when it had at least this many */
    readonly brokerMinConnections: number;
    /** a consumer group is idle when every connection has been idle this long */
    readonly groupIdle: bigint;
  };
  readonly shadow: {
    /** records of lag (per partition) above which a topic is lagging */
    readonly lagRecords: bigint;
    /** estimated time lag growth over a run that makes the lag "growing" */
    readonly lagGrowth: bigint;
    /** no replication progress for this long while the source moves: stopped */
    readonly stopWindow: bigint;
    /** source partition information older than this is stale */
    readonly sourceStale: bigint;
  };
  readonly iceberg: {
    /** commit lag (records, per partition) above which a topic is lagging */
    readonly commitLag: bigint;
    /** no commit for this long while translation advances: stalled */
    readonly commitStall: bigint;
  };
}

const S = 1_000_000_000n;

/** The defaults. */
export const DEFAULT_THRESHOLDS: Thresholds = {
  warmup: 10n * 60n * S,
  collection: { gapFactor: 2.5 },
  connections: {
    stormWindow: 60n * S,
    stormMinOpens: 30,
    stormFactor: 5,
    clientMinConnections: 3,
    clientMultiplyFactor: 3,
    clientMultiplyMin: 10,
    authFailureMin: 5,
    inFlightStuck: 30n * S,
    brokerMinConnections: 5,
    groupIdle: 60n * S,
  },
  shadow: { lagRecords: 100_000n, lagGrowth: 15n * S, stopWindow: 120n * S, sourceStale: 60n * S },
  iceberg: { commitLag: 1_000_000n, commitStall: 180n * S },
};

/** A threshold key or value that is not accepted; `key` is the dotted path. */
export class ThresholdError extends Error {
  override readonly name = 'ThresholdError';
  /** e.g. `connections.stormMinOpens` */
  readonly key: string;
  constructor(key: string, reason: string) {
    super(`thresholds.${key}: ${reason}`);
    this.key = key;
  }
}

type Kind = 'duration' | 'count' | 'factor' | 'records';

const SPEC: Record<string, Kind | Record<string, Kind>> = {
  warmup: 'duration',
  collection: { gapFactor: 'factor' },
  connections: {
    stormWindow: 'duration',
    stormMinOpens: 'count',
    stormFactor: 'factor',
    clientMinConnections: 'count',
    clientMultiplyFactor: 'factor',
    clientMultiplyMin: 'count',
    authFailureMin: 'count',
    inFlightStuck: 'duration',
    brokerMinConnections: 'count',
    groupIdle: 'duration',
  },
  shadow: { lagRecords: 'records', lagGrowth: 'duration', stopWindow: 'duration', sourceStale: 'duration' },
  iceberg: { commitLag: 'records', commitStall: 'duration' },
};

function parseDuration(key: string, v: unknown): bigint {
  if (typeof v !== 'string') throw new ThresholdError(key, 'must be a duration such as 30s, 5m, 1h or 1d');
  const days = /^([0-9]+)d$/.exec(v.trim());
  if (days !== null) return BigInt(days[1] as string) * 86_400n * S;
  let ns: bigint;
  try {
    ns = parseFilterDuration(v.trim());
  } catch {
    throw new ThresholdError(key, `invalid duration ${JSON.stringify(v)}: use a number with a unit (ms, s, m, h, d)`);
  }
  if (ns <= 0n) throw new ThresholdError(key, 'must be greater than zero');
  return ns;
}

function parseValue(key: string, kind: Kind, v: unknown): bigint | number {
  switch (kind) {
    case 'duration':
      return parseDuration(key, v);
    case 'records':
      if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
      if (typeof v === 'string' && /^[0-9]+$/.test(v)) return BigInt(v);
      throw new ThresholdError(key, 'must be a whole number of records (0 or more)');
    case 'count':
      if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 1) return v;
      throw new ThresholdError(key, 'must be a whole number, at least 1');
    case 'factor':
      if (typeof v === 'number' && Number.isFinite(v) && v > 1) return v;
      throw new ThresholdError(key, 'must be a number greater than 1');
  }
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Merges a partial thresholds object (as read from YAML: durations as strings such as `5m`)
 * over the defaults; an unknown key or a bad value is a ThresholdError naming the key.
 */
export function resolveThresholds(partial: unknown = {}): Thresholds {
  if (partial === undefined || partial === null) return DEFAULT_THRESHOLDS;
  if (!isMapping(partial)) throw new ThresholdError('', 'must be a mapping (key: value)');
  const out: Record<string, unknown> = structuredClone(DEFAULT_THRESHOLDS) as unknown as Record<string, unknown>;
  for (const [group, value] of Object.entries(partial)) {
    const spec = SPEC[group];
    if (spec === undefined) throw new ThresholdError(group, `unknown key (expected one of: ${Object.keys(SPEC).join(', ')})`);
    if (typeof spec === 'string') {
      out[group] = parseValue(group, spec, value);
      continue;
    }
    if (!isMapping(value)) throw new ThresholdError(group, 'must be a mapping (key: value)');
    const target = out[group] as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) {
      const kind = spec[k];
      if (kind === undefined) throw new ThresholdError(`${group}.${k}`, `unknown key (expected one of: ${Object.keys(spec).join(', ')})`);
      target[k] = parseValue(`${group}.${k}`, kind, v);
    }
  }
  return out as unknown as Thresholds;
}
