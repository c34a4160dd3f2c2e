/**
 * The detector thresholds from the config file, shared by `timeline`, `summary`, `trends`,
 * `fleet`, `browse` and `db prune`: kept apart from the timeline command so that a command
 * reading them does not load the timeline's renderers, and the YAML parser and the schema load
 * only when a config file is given.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { DEFAULT_THRESHOLDS, ThresholdError, type Thresholds } from '../../report/timeline/thresholds.ts';
import { UsageError, type CliIo } from '../context.ts';

/** The global options the analysis commands read. */
export interface AnalysisGlobals {
  db: string;
  config?: string;
  cluster?: string;
  output?: string;
  color?: boolean;
}

/**
 * The detector thresholds: the `thresholds:` section of the config file when there is one,
 * over the defaults. A bad key or value is a usage error naming it.
 */
export async function thresholdsFromConfig(g: AnalysisGlobals, io: CliIo): Promise<Thresholds> {
  if (g.config === undefined) return DEFAULT_THRESHOLDS;
  const { resolveThresholds } = await import('../../report/timeline/thresholds-schema.ts');
  const { parse: parseYaml } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const path = resolve(io.cwd, g.config);
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read the config file ${path}: ${(err as Error).message.split('\n')[0]}`);
  }
  const section = doc !== null && typeof doc === 'object' ? (doc as Record<string, unknown>).thresholds : undefined;
  try {
    return resolveThresholds(section);
  } catch (err) {
    if (err instanceof ThresholdError) throw new UsageError(`${path}: ${err.message}`);
    throw err;
  }
}
