/**
 * `flightrec fleet [--at T] [--window D]`: one line per recorded cluster (or per cluster the
 * `--cluster` glob names): newest poll and its age, open connections, worst shadow lag, Iceberg
 * and upgrade states, open events by severity; worst first.
 */
import type { Command } from 'commander';
import { parseDurationArg } from '../../collector/time-args.ts';
import { createHistoryReader } from '../../db/index.ts';
import { DEFAULT_FLEET_WINDOW, fleetStatus, type Fleet } from '../../report/fleet.ts';
import {
  fleetToJson,
  fleetView,
  renderFleetCsv,
  renderFleetJson,
  renderFleetNdjson,
} from '../../report/render/fleet.ts';
import { mdTable } from '../../report/render/markdown.ts';
import { renderTable } from '../../report/render/table.ts';
import { renderYaml } from '../../report/render/yaml.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { dbOpenTarget, typedDb } from '../db-target.ts';
import { globalOptionsHelp, READ_DB } from './help.ts';
import { openHistoryReadOnly, withClusterSet } from './history.ts';
import { chooseOutput } from './output-choice.ts';
import { flagValue, timeOption } from './time-option.ts';
import { thresholdsFromConfig, type AnalysisGlobals } from './timeline.ts';

/** Output formats of `fleet`. */
export const FLEET_FORMATS = ['table', 'json', 'ndjson', 'csv', 'yaml', 'md'] as const;
type FleetFormat = (typeof FLEET_FORMATS)[number];

interface FleetOpts {
  at?: string;
  window?: string;
}

/** Registers `fleet`. */
export function registerFleet(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('fleet')
    .description('one line per recorded cluster: last poll, connections, shadow lag, Iceberg, upgrade, open events')
    .option('--at <time>', 'as of TIME (RFC 3339, now, -2h, 30m); default now')
    .option('--window <duration>', "how far before each cluster's newest poll to look for open events (default 6h)")
    .addHelpText(
      'after',
      globalOptionsHelp({
        db: READ_DB,
        cluster: 'only the clusters this name or glob names (prod-*, dc[12]); default every recorded cluster',
        config: 'its thresholds: section',
        output: FLEET_FORMATS,
        color: true,
      }),
    )
    .action(async (opts: FleetOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<AnalysisGlobals>();
      const out = chooseOutput<FleetFormat>(g, io, FLEET_FORMATS);
      const at = timeOption('--at', opts.at ?? 'now', io) as bigint;
      const given = opts.window;
      const window = given === undefined ? DEFAULT_FLEET_WINDOW : flagValue('--window', () => parseDurationArg(given));
      if (window <= 0n) throw new UsageError('--window must be longer than zero');
      const thresholds = await thresholdsFromConfig(g, io);
      const run = (reader: Parameters<typeof fleetStatus>[0], clusters?: readonly string[]): Fleet =>
        fleetStatus(reader, { clusters, at, window, thresholds });
      const fleet =
        g.cluster === undefined ? allClusters(g, io, run) : withClusterSet({ ...g, cluster: g.cluster }, io, run);
      if (fleet.lines.length === 0) io.stderr.write('note: no cluster is recorded\n');
      io.stdout.write(renderFleetAs(fleet, out.format, out));
      done(EXIT.ok);
    });
}

function allClusters(
  g: AnalysisGlobals,
  io: CliIo,
  run: (reader: ReturnType<typeof createHistoryReader>) => Fleet,
): Fleet {
  const db = openHistoryReadOnly(dbOpenTarget(g.db, io.cwd), typedDb(g, io.cwd));
  try {
    return run(createHistoryReader(db));
  } finally {
    db.close();
  }
}

function renderFleetAs(f: Fleet, format: FleetFormat, out: { color: boolean; width: number | undefined }): string {
  switch (format) {
    case 'table':
      return renderTable(fleetView(f), { color: out.color, width: out.width });
    case 'json':
      return renderFleetJson(f);
    case 'ndjson':
      return renderFleetNdjson(f);
    case 'csv':
      return renderFleetCsv(f);
    case 'yaml':
      return renderYaml(fleetToJson(f));
    case 'md':
      return `${mdTable(fleetView(f))}\n`;
  }
}
