/** Rollups: raw history summarised before it is pruned, and read back by trends, timeline and summary. */
export { bucketStart, createRollUp, ROLLUP_RESOLUTIONS, type RollUpOptions, type RollUpSource } from './roll-up.ts';
export { coarsen } from './coarsen.ts';
export { rollBucket, rollBucketSteps } from './bucket-rows.ts';
export { keptEvent, mergeKeptEvents, storeEvent } from './kept-events.ts';
export { stateRuns, type StateObservation } from './state-runs.ts';
export { RollUpThread, type RollUpThreadOptions } from './rollup-thread.ts';
