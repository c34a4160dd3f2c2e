/**
 * `flightrec check [--base-url URL]`: probes a cluster with one read-only call per operation and
 * reports which operations answer under the service prefix, what a 404 means, and the state of
 * authentication and licence. Records nothing (no database is opened). Takes the same cluster,
 * authentication and TLS options as `collect` (flags > environment > config file).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { sanitizeCell, sanitizeForTerminal } from '../../api/safe-text.ts';
import { formatJson, toJsonValue } from '../../report/render/json.ts';
import { createClusterClient, readConfigFile, type CollectFlags } from '../../collector/index.ts';
import { EXIT, type CliIo } from '../context.ts';
import { probeCluster, type ClusterCheck } from './check-probe.ts';
import { globalOptionsHelp } from './help.ts';
import { addConnectionOptions, type ConnectionOpts } from './connection-options.ts';

interface CheckOpts extends ConnectionOpts {
  link: string[];
}

interface GlobalOpts {
  config?: string;
  cluster?: string;
  output?: string;
}

const collect = (v: string, prev: string[]): string[] => [...prev, v];

/** Registers `check`. */
export function registerCheck(program: Command, io: CliIo, done: (code: number) => void): void {
  addConnectionOptions(
    program
      .command('check')
      .description(
        'probe a cluster without recording: which operations answer, under which service prefix, authentication and licence',
      ),
  )
    .option('--link <link[:topic,...]>', 'shadow link (and topic) to ask about (repeatable)', collect, [])
    .addHelpText(
      'after',
      globalOptionsHelp({
        cluster: 'the cluster of the config file to probe (default: every one)',
        config: 'clusters and their connection settings',
        output: ['text', 'json'],
      }),
    )
    .action(async (opts: CheckOpts, cmd: Command) => {
      done(await runCheck(opts, cmd.optsWithGlobals<GlobalOpts & CheckOpts>(), io));
    });
}

function flagsOf(o: CheckOpts, cluster: string | undefined): CollectFlags {
  const { link, ...rest } = o;
  return { ...rest, cluster, link };
}

/** Runs `check`; 0 when every operation asked answers, 1 otherwise. */
export async function runCheck(opts: CheckOpts, g: GlobalOpts, io: CliIo): Promise<number> {
  const warnings: string[] = [];
  const { loadCollectorConfig } = await import('../../collector/config-load.ts');
  const file = g.config === undefined ? undefined : readConfigFile(resolve(io.cwd, g.config));
  const config = loadCollectorConfig({ file, env: io.env, flags: flagsOf(opts, g.cluster) });
  const checks: ClusterCheck[] = [];
  for (const cluster of config.clusters) {
    const client = createClusterClient(cluster, io.env, (w) => warnings.push(w));
    try {
      checks.push(await probeCluster(cluster, client));
    } finally {
      await client.close();
    }
  }
  for (const w of warnings) io.stderr.write(sanitizeForTerminal(`warning: ${w}\n`));
  if (g.output === 'json') io.stdout.write(`${formatJson(toJsonValue({ clusters: checks }))}\n`);
  else io.stdout.write(checks.map(renderCheck).join('\n'));
  return checks.every((c) => c.ok) ? EXIT.ok : EXIT.failure;
}

const MARK = {
  answers: 'ok',
  'not-served': '404',
  refused: 'REFUSED',
  unreachable: 'DOWN',
  failed: 'FAILED',
  skipped: '-',
} as const;

/** The text report of one cluster. */
export function renderCheck(c: ClusterCheck): string {
  const lines = [
    `cluster ${c.cluster} at ${c.baseUrl}`,
    `  service prefix  ${sanitizeCell(c.prefix)}`,
    `  authentication  ${sanitizeCell(c.authentication)}`,
    `  licence         ${sanitizeCell(c.licence)}`,
    '',
  ];
  const width = Math.max(...c.probes.map((p) => p.operation.length + (p.target === '' ? 0 : p.target.length + 3)));
  for (const p of c.probes) {
    const name = p.target === '' ? p.operation : `${p.operation} (${p.target})`;
    lines.push(`  ${MARK[p.status].padEnd(7)} ${sanitizeCell(name).padEnd(width)}  ${sanitizeCell(p.detail)}`);
  }
  lines.push('');
  return sanitizeForTerminal(lines.join('\n'));
}
