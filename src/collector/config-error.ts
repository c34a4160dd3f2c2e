/**
 * The error of a configuration value that cannot be used, naming the key, flag or variable, and
 * reading the config file. Free of the validators (zod), so that importing it costs nothing.
 */
import { readFileSync } from 'node:fs';

/** A configuration value that cannot be used; `key` names it (`clusters[0].timeout`, `--timeout`, `FLIGHTREC_TIMEOUT`). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** the offending key, flag or environment variable */
  readonly key: string;

  constructor(key: string, problem: string) {
    super(key === '' ? problem : `${key}: ${problem}`);
    this.key = key;
  }
}

/** Reads a config file; a missing or unreadable file is a ConfigError naming it. */
export function readConfigFile(path: string): { text: string; path: string } {
  try {
    return { text: readFileSync(path, 'utf8'), path };
  } catch (err) {
    const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'cannot read');
    throw new ConfigError('', `config file ${path}: ${why}`);
  }
}
