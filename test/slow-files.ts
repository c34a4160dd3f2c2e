/**
 * The slowest test files of a full run, slowest first: test/slow-first-sequencer.ts starts them
 * before the others. Measured with `npm test` (default reporter, per-file times) on 2 cores;
 * a file missing here only starts later, so the list needs no exactness, only the long ones.
 * A run at load 10-15 took longest on crash.test.ts (208 s; fewer kills since, see its header),
 * then db-copy-pg, pg-readers, ground-truth, corruption; readme-order and trends-narrow, which
 * started late, took 94 s each.
 */
export const SLOW_FILES: readonly string[] = [
  'test/cli/pg-readers.test.ts',
  'test/report/ground-truth.test.ts',
  'test/cli/db-copy-pg.test.ts',
  'test/cli/pg-readers-retention.test.ts',
  'test/reliability/corruption.test.ts',
  'test/reliability/crash.test.ts',
  'test/cli/trustworthy-answers.test.ts',
  'test/db/pg-retention.test.ts',
  'test/cli/realtime.test.ts',
  'test/cli/demo.test.ts',
  'test/cli/storage-sql.test.ts',
  'test/db/pg-prefetch.test.ts',
  'test/tui/tmux.test.ts',
  'test/cli/readme-order.test.ts',
  'test/report/trends-narrow.test.ts',
  'test/report/timeline-scenarios.test.ts',
  'test/report/fleet-lag.test.ts',
  'test/db/presence-roundtrip.test.ts',
  'test/db/state.test.ts',
  'test/cli/lossless-wire.test.ts',
  'test/report/staleness-views.test.ts',
  'test/report/timeline-cli.test.ts',
  'test/collector/pg-standby.test.ts',
  'test/reliability/disk.test.ts',
  'test/cli/db-copy.test.ts',
  'test/db/connection-entities.test.ts',
  'test/collector/sim-integration.test.ts',
  'test/alerts/collect-alerts.test.ts',
  'test/db/pg-space.test.ts',
  'test/db/pg-first-version.test.ts',
  'test/cli/shadow-rounds.test.ts',
  'test/reliability/hostile-input.test.ts',
  'test/db/connections-roundtrip.test.ts',
];
