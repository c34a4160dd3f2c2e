// The collector of bench/fleet-pg.bench.ts when the built CLI cannot record into a PostgreSQL URL
// yet: the same pieces `flightrec collect --config FILE --log-format json` assembles (the config
// loaded by loadCollectorConfig, the recording store opened by openRecordingStore, the Collector
// on its cron schedules, JSON log lines on stderr), without the metrics endpoint, retention and
// rollups (none configured in the bench). Stops cleanly on SIGINT or SIGTERM.
// Usage: node --import tsx bench/lib/fleet-collector.ts CONFIG_FILE DB_URL
import { hostname } from 'node:os';
import { Collector, readConfigFile } from '../../src/collector/index.ts';
import { createJsonReporter } from '../../src/collector/json-log.ts';
import { loadCollectorConfig } from '../../src/collector/config-load.ts';
import { openRecordingStore } from '../../src/db/index.ts';

const [configPath, dbUrl] = process.argv.slice(2);
if (configPath === undefined || dbUrl === undefined) throw new Error('usage: fleet-collector.ts CONFIG_FILE DB_URL');

const config = loadCollectorConfig({ file: readConfigFile(configPath), env: process.env, flags: {} });
const writer = openRecordingStore(dbUrl);
const collector = new Collector({
  config,
  writer,
  env: process.env,
  now: Date.now,
  reporter: createJsonReporter(process.stderr, Date.now),
  storeLabel: 'the bench database',
  owner: `${hostname()} pid ${process.pid}`,
});
const stop = (): void => {
  void collector.shutdown().then((r) => {
    writer.close();
    process.exit(r.unwritten === 0 ? 0 : 1);
  });
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
collector.start();
