/**
 * Thresholds and windows of the timeline detectors: their type and defaults, and the error of a
 * bad `thresholds:` section. The schema that checks the section (and loads zod) is
 * `thresholds-schema.ts`, so that reading the defaults costs nothing.
 */
export type { Thresholds } from './thresholds-schema.ts';

const S = 1_000_000_000n;

/** The defaults (the schema's defaults too; its output type is {@link Thresholds}). */
export const DEFAULT_THRESHOLDS = {
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
  shadow: {
    lagRecords: 100_000n,
    lagGrowth: 15n * S,
    stopWindow: 120n * S,
    sourceStale: 60n * S,
    materialLag: 100n,
    materialTimeLag: 10n * S,
  },
  iceberg: { commitLag: 1_000_000n, commitStall: 180n * S, materialLag: 1_000n },
};

/** A threshold key or value that is not accepted; `key` is the dotted path. */
export class ThresholdError extends Error {
  override readonly name = 'ThresholdError';
  /** e.g. `connections.stormMinOpens` */
  readonly key: string;
  constructor(key: string, reason: string) {
    super(`thresholds${key === '' ? '' : `.${key}`}: ${reason}`);
    this.key = key;
  }
}
