/** `flightrec sim`: serve the simulated cluster on loopback until stopped. */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { wallClockStart } from '../../sim/time.ts';
import { RuntimeError, UsageError, type CliIo } from '../context.ts';
import { simStart } from '../sim-start.ts';
import { globalOptionsHelp } from './help.ts';

interface SimOpts {
  host: string;
  port: string;
  seed: string;
  scenario?: string;
  speed: string;
  connections?: string;
  links?: string;
  brokers?: string;
  servicePrefix?: string;
  start?: string;
}

function number(value: string, flag: string, check: (n: number) => boolean, what: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new UsageError(`${flag} must be ${what}, got ${JSON.stringify(value)}`);
  return n;
}

/**
 * Registers `sim`: prints the base URL, then `link <name>` and `topic <link>/<topic>` lines, and
 * serves. The world starts at the wall-clock time (so a collector's poll times and the values the
 * cluster reports agree), or at `--start`.
 */
export function registerSim(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('sim')
    .description('serve a simulated cluster (the six admin API operations) on loopback until stopped')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', '0')
    .option('--seed <n>', 'seed of the world (same seed, same clock: same answers)', '1')
    .option('--scenario <name|file>', 'built-in scenario name or YAML file (docs/scenarios.md)')
    .option('--speed <x>', 'simulated seconds per real second', '1')
    .option('--connections <n>', 'target number of open connections')
    .option('--links <names>', 'comma-separated shadow link names')
    .option('--brokers <n>', 'number of brokers')
    .option('--service-prefix <prefix>', 'service prefix of the paths (default platform.core.admin.v2)')
    .option('--start <time>', "the world's start: RFC 3339, now or -2h (default: now, the wall-clock time)")
    .addHelpText('after', globalOptionsHelp({}))
    .action(async (opts: SimOpts) => {
      const { startSimServer, ScenarioError } = await import('../../sim/index.ts');
      const port = number(opts.port, '--port', (n) => Number.isInteger(n) && n >= 0 && n <= 65535, 'a port number');
      const seed = number(opts.seed, '--seed', (n) => Number.isInteger(n) && n >= 0, 'a non-negative integer');
      const speed = number(opts.speed, '--speed', (n) => n > 0 && n <= 100_000, 'a positive number');
      const connections =
        opts.connections === undefined
          ? undefined
          : number(
              opts.connections,
              '--connections',
              (n) => Number.isInteger(n) && n >= 0 && n <= 200_000,
              'an integer up to 200000',
            );
      const brokers =
        opts.brokers === undefined
          ? undefined
          : number(
              opts.brokers,
              '--brokers',
              (n) => Number.isInteger(n) && n >= 1 && n <= 64,
              'an integer from 1 to 64',
            );
      const startTime = simStart(opts.start, wallClockStart(io.now()), io.now());
      const links =
        opts.links === undefined
          ? undefined
          : opts.links
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s !== '');
      // a file path is relative to the working directory; a bare word is a built-in scenario
      const scenario =
        opts.scenario !== undefined && /[/\\.]/.test(opts.scenario) ? resolve(io.cwd, opts.scenario) : opts.scenario;
      let server;
      try {
        server = await startSimServer({
          host: opts.host,
          port,
          seed,
          scenario,
          speed,
          connections,
          links,
          brokers,
          servicePrefix: opts.servicePrefix,
          startTime,
        });
      } catch (err) {
        // the simulator is loaded lazily, so its own error is mapped here
        if (err instanceof ScenarioError) throw new UsageError(err.message, { cause: err });
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL')
          throw new RuntimeError(`cannot listen on ${opts.host}:${port}: ${e.code}`);
        throw err;
      }
      const d = server.describe();
      io.stdout.write(`${server.baseUrl}\n`);
      for (const l of d.links) io.stdout.write(`link ${l}\n`);
      for (const t of d.topics) io.stdout.write(`topic ${t.link}/${t.topic}\n`);
      io.stderr.write(
        `flightrec sim: scenario ${server.scenario.name}, seed ${seed}, speed ${speed}x, world start ${formatTimestampShort(startTime)}; serving until interrupted\n`,
      );
      await new Promise<void>((resolve) => {
        if (io.signal.aborted) resolve();
        else io.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await server.close();
      done(0);
    });
}
