/** The config file's `database:` section: a password file for a PostgreSQL --db, never the password. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/collector/config-error.ts';
import { parseConfigFile } from '../../src/collector/config-file.ts';
import { loadCollectorConfig } from '../../src/collector/config-load.ts';
import { dbOpenOptions } from '../../src/cli/db-target.ts';

const CLUSTER = 'clusters: [{ baseUrl: "http://127.0.0.1:9644" }]\n';

function load(text: string): ReturnType<typeof loadCollectorConfig> {
  return loadCollectorConfig({ env: {}, flags: {}, file: { text, path: 'flightrec.yaml' } });
}

function errorOf(text: string): ConfigError {
  try {
    load(text);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('no error');
}

describe('database: in the config file', () => {
  it('names the password file', () => {
    expect(load(`${CLUSTER}database:\n  passwordFile: /etc/flightrec/db-password\n`).databasePasswordFile).toBe(
      '/etc/flightrec/db-password',
    );
    expect(load(CLUSTER).databasePasswordFile).toBeUndefined();
  });

  it('refuses the password itself, saying what to use, without echoing it', () => {
    const err = errorOf(`${CLUSTER}database:\n  password: hunter2\n`);
    expect(err.message).toMatch(
      /^database\.password: secrets are not written in the config; use passwordFile .* PGPASSWORD/,
    );
    expect(err.message).not.toContain('hunter2');
  });

  it('is documented in docs/operations.md with the other keys', () => {
    const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const start = doc.indexOf('```yaml', doc.indexOf('## `flightrec.yaml`, every key')) + '```yaml'.length;
    const file = parseConfigFile(doc.slice(start, doc.indexOf('```', start)), 'operations.md');
    expect(file.global.database).toEqual({ passwordFile: '/etc/flightrec/db-password' });
  });

  it('refuses unknown keys and an empty passwordFile', () => {
    expect(errorOf(`${CLUSTER}database:\n  url: postgres://h/db\n`).message).toMatch(/^database\.url: unknown key/);
    expect(errorOf(`${CLUSTER}database:\n  passwordFile: ""\n`).message).toMatch(/^database\.passwordFile: /);
  });
});

describe('which password file a server --db opens with', () => {
  it('the flag (or FLIGHTREC_DB_PASSWORD_FILE) first, then the config; resolved; none for an SQLite file', () => {
    const url = 'postgres://u@h/db';
    expect(dbOpenOptions({ db: url, dbPasswordFile: 'flag.pw' }, '/w', '/etc/conf.pw')).toEqual({
      passwordFile: '/w/flag.pw',
    });
    expect(dbOpenOptions({ db: url }, '/w', 'conf.pw')).toEqual({ passwordFile: '/w/conf.pw' });
    expect(dbOpenOptions({ db: url }, '/w')).toEqual({});
    expect(dbOpenOptions({ db: 'x.db', dbPasswordFile: 'flag.pw' }, '/w', 'conf.pw')).toEqual({});
  });
});
