/** The collector: config, schedules, fan-out, retries, one call at a time, clean shutdown. */
export * from './config.ts';
export { ConfigError, readConfigFile } from './config-error.ts';
// loadCollectorConfig and parseConfigFile load zod: import './config-load.ts' or './config-file.ts' when needed
export type { CollectFlags, ConfigInput } from './config-load.ts';
export * from './time-args.ts';
export * from './retry.ts';
export * from './call-queue.ts';
export * from './fanout.ts';
export * from './poller.ts';
export * from './schedule.ts';
export * from './output.ts';
export * from './clients.ts';
export * from './collector.ts';
export * from './held-polls.ts';
export * from './lease-keeper.ts';
export * from './record-sink.ts';
export * from './store-queue.ts';
export * from './record-transfer.ts';
export * from './scrub.ts';
export * from './startup.ts';
export * from './retention-runner.ts';
export * from './stored-horizon.ts';
