/** The error of a configuration value that cannot be used, naming the key, flag or variable. */

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
