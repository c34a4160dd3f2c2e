/**
 * The slowest test files of a full run, slowest first: test/slow-first-sequencer.ts starts them
 * before the others. Measured with `npx vitest run --reporter=json` (per-file start and end) on 2
 * cores, four files at a time, on an otherwise idle machine (2026-12-06: 333 s in all); a file
 * missing here only starts later, so the list needs no exactness, only the long ones. In the run
 * before this list, realtime.test.ts (74 s) started 89 s in and fleet-read-ahead.test.ts (30 s)
 * 268 s in, which set the run's end.
 */
export const SLOW_FILES: readonly string[] = [
  'test/cli/realtime.test.ts',
  'test/cli/db-copy-pg.test.ts',
  'test/report/timeline-scenarios.test.ts',
  'test/reliability/corruption.test.ts',
  'test/cli/pg-readers-retention.test.ts',
  'test/reliability/crash.test.ts',
  'test/report/fleet-read-ahead.test.ts',
  'test/cli/pg-readers.test.ts',
  'test/collector/pg-standby.test.ts',
  'test/cli/trustworthy-answers.test.ts',
  'test/cli/readme-order.test.ts',
  'test/reliability/hostile-input.test.ts',
  'test/tui/tmux.test.ts',
  'test/report/ground-truth.test.ts',
  'test/db/state.test.ts',
  'test/db/presence-roundtrip.test.ts',
  'test/collector/sim-integration.test.ts',
  'test/report/trends-narrow.test.ts',
  'test/db/connections-roundtrip.test.ts',
  'test/reliability/large-answers.test.ts',
  'test/report/fleet-lag.test.ts',
  'test/tui/terminal.test.ts',
  'test/collector/shutdown.test.ts',
  'test/cli/lossless-wire.test.ts',
  'test/collector/rollup-worker.test.ts',
  'test/report/staleness-views.test.ts',
  'test/reliability/secrets.test.ts',
  'test/alerts/ecosystem.test.ts',
  'test/db/pg-retention.test.ts',
  'test/cli/demo.test.ts',
  'test/cli/process-exit.test.ts',
  'test/cli/readme-examples.test.ts',
  'test/db/pg-prefetch.test.ts',
  'test/alerts/never-blocks.test.ts',
  'test/db/pg-space.test.ts',
  'test/alerts/collect-alerts.test.ts',
  'test/tui/views-more.test.ts',
  'test/db/pg-entity-uid.test.ts',
  'test/db/connection-entities.test.ts',
  'test/db/uid-lookup.test.ts',
];
