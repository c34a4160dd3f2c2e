/**
 * Analysis over history: pure functions over the history reader that return data (query, diff),
 * the column models shared with the TUI, human units, and renderers to text, JSON, ndjson, CSV,
 * YAML and Markdown.
 */
export * from './format-units.ts';
export * from './columns/index.ts';
export {
  runQuery,
  prepareFilter,
  sourceProblem,
  QueryOptionsError,
  type ReportReader,
  type QueryOptions,
  type QueryResult,
  type QuerySample,
} from './query.ts';
export {
  diffStates,
  DIFF_CLASSES,
  observe,
  keyFunction,
  DiffOptionsError,
  DIFF_RESOURCES,
  type DiffClass,
  type DiffOptions,
  type DiffResult,
  type ResourceDiff,
  type EntityRef,
  type EntityChange,
  type MetricTotal,
  type Observation,
  type FieldChange,
  type MetricUnit,
} from './diff.ts';
export { DIFF_RULES, classify } from './diff-fields.ts';
export {
  compareConnections,
  connectionChangeCounts,
  isClosedConnection,
  CONNECTION_CHANGE_WORDS,
  type ConnectionChange,
  type ConnectionChanges,
  type ConnectionListing,
} from './connection-changes.ts';
export {
  freshnessOf,
  freshnessOfRecording,
  scheduleInterval,
  DEFAULT_INTERVAL_NS,
  STALE_AFTER_INTERVALS,
  type Freshness,
  type FreshnessReader,
  type OperationFreshness,
} from './freshness.ts';
export { findGaps, pollGaps, type Gap, type GapSource, type GapWindow, type PollTime } from './gaps.ts';
export * from './render/index.ts';
