/** The bridge worker's engine for a PostgreSQL or PGlite target. */
import type { BridgeEngine } from './bridge-protocol.ts';
import { pgPoolConfigData, type DbTarget } from './target.ts';

/** What the bridge worker connects to for this target. */
export function bridgeEngineOf(target: Exclude<DbTarget, { kind: 'sqlite' }>): BridgeEngine {
  if (target.kind === 'pglite') return { kind: 'pglite', dir: target.dir };
  return { kind: 'pg', config: pgPoolConfigData(target) };
}
