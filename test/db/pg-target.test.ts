import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DbTargetError,
  displayDbTarget,
  isDbUrl,
  parseDbTarget,
  parseDbTargetText,
  pgPoolConfig,
  pgPoolConfigData,
  redactDbTexts,
  revivePoolConfig,
  redactSecrets,
  type DbTarget,
  type PostgresTarget,
} from '../../src/db/engines/pg/target.ts';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-pgtarget-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 's3cret/p@ss:w0rd';
const ENC = encodeURIComponent(SECRET);
const NO_ENV = {};

function file(name: string, text: string, mode = 0o600): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  chmodSync(p, mode);
  return p;
}

function pg(text: string, opts: Parameters<typeof parseDbTarget>[1] = { env: NO_ENV }): PostgresTarget {
  const t = parseDbTarget(text, opts);
  if (t.kind !== 'postgres') throw new Error(`not postgres: ${t.kind}`);
  return t;
}

/** The error parseDbTarget throws for `text` (fails the test when none). */
function failure(text: string, opts: Parameters<typeof parseDbTarget>[1] = { env: NO_ENV }): DbTargetError {
  try {
    parseDbTarget(text, opts);
  } catch (err) {
    expect(err).toBeInstanceOf(DbTargetError);
    return err as DbTargetError;
  }
  throw new Error(`parsed: ${text}`);
}

describe('parseDbTarget: which engine', () => {
  it('keeps SQLite paths, :memory: included, and tells URLs apart', () => {
    expect(parseDbTarget('./flightrec.db')).toEqual({ kind: 'sqlite', path: './flightrec.db' });
    expect(parseDbTarget(':memory:')).toEqual({ kind: 'sqlite', path: ':memory:' });
    expect(parseDbTarget('/var/lib/x.db')).toEqual({ kind: 'sqlite', path: '/var/lib/x.db' });
    expect(isDbUrl('postgres://h/db')).toBe(true);
    expect(isDbUrl('POSTGRESQL://h/db')).toBe(true);
    expect(isDbUrl('pglite://memory')).toBe(true);
    expect(isDbUrl('./postgres://x')).toBe(false);
    expect(isDbUrl('flightrec.db')).toBe(false);
  });

  it('reads pglite://memory and pglite:///abs/dir, and refuses a relative directory', () => {
    expect(parseDbTarget('pglite://memory')).toEqual({ kind: 'pglite', dir: 'memory' });
    expect(parseDbTarget('pglite:///tmp/pg data')).toEqual({ kind: 'pglite', dir: '/tmp/pg data' });
    expect(failure('pglite://rel/dir').message).toMatch(/pglite:\/\/memory or pglite:\/\/\/ABSOLUTE/);
    expect(failure('postgres:/h/db').message).toMatch(/starts with postgres:\/\//);
  });
});

describe('parseDbTarget: postgres URLs', () => {
  it('reads user, password, host, port, database and parameters', () => {
    const t = pg(`postgresql://alice:${ENC}@db.example.com:6543/hist?sslmode=verify-full&application_name=fr-a`);
    expect(t).toMatchObject({
      host: 'db.example.com',
      socket: false,
      port: 6543,
      database: 'hist',
      user: 'alice',
      passwordSource: 'url',
      sslmode: 'verify-full',
      applicationName: 'fr-a',
      connectTimeoutSeconds: 10,
    });
    expect(t.password?.reveal()).toBe(SECRET);
  });

  it('defaults: port 5432, localhost, sslmode prefer, application_name flightrec, no user or database', () => {
    const t = pg('postgres://');
    expect(t).toMatchObject({ host: 'localhost', port: 5432, sslmode: 'prefer', applicationName: 'flightrec' });
    expect(t.user).toBeUndefined();
    expect(t.database).toBeUndefined();
    expect(t.passwordSource).toBe('none');
  });

  it('reads an IPv6 host in brackets', () => {
    const t = pg('postgres://u@[::1]:5433/db');
    expect(t).toMatchObject({ host: '::1', port: 5433, socket: false });
    expect(displayDbTarget(t)).toBe('postgres://u@[::1]:5433/db');
  });

  it('reads a unix socket directory from ?host= or a percent-encoded host', () => {
    const a = pg('postgres:///flightrec?host=/var/run/postgresql');
    expect(a).toMatchObject({ host: '/var/run/postgresql', socket: true, database: 'flightrec' });
    expect(pgPoolConfig(a).ssl).toBe(false);
    expect(displayDbTarget(a)).toBe('postgres:///flightrec?host=/var/run/postgresql&port=5432');
    const b = pg('postgres://%2Ftmp%2Fsock/db?sslmode=disable');
    expect(b).toMatchObject({ host: '/tmp/sock', socket: true });
    expect(displayDbTarget(b)).toBe('postgres:///db?host=/tmp/sock&port=5432&sslmode=disable');
    const c = pg('postgres:///db?sslmode=disable&host=/s&port=5433&user=fr');
    expect(c).toMatchObject({ host: '/s', socket: true, port: 5433, user: 'fr' });
    expect(displayDbTarget(c)).toBe('postgres:///db?host=/s&port=5433&user=fr&sslmode=disable');
  });

  it('decodes a percent-encoded user and database', () => {
    expect(pg('postgres://me%40corp@h/my%20db')).toMatchObject({ user: 'me@corp', database: 'my db' });
  });

  it.each([
    ['postgres://h/db?sslmode=bogus', /sslmode "bogus" is not one of disable, allow, prefer/],
    ['postgres://h/db?foo=1', /unknown query parameter "foo"/],
    ['postgres://h/db?sslmode=require&sslmode=disable', /sslmode is given twice/],
    ['postgres://h/db?connect_timeout=-1', /connect_timeout is a whole number/],
    ['postgres://h/db?sslcert=/c.pem', /sslcert and sslkey go together/],
    ['postgres://h/db?host=/s', /either in the URL or as \?host=/],
    ['postgres:///db?host=relative', /unix socket directory/],
    ['postgres://a,b/db', /several hosts/],
    ['postgres://h/a/b', /one path segment/],
    ['postgres://h:99999/db', /not a valid PostgreSQL URL/],
    ['postgres://h:5432/db?port=5433', /port either in the URL or as \?port=/],
    ['postgres://u@h/db?user=v', /user either in the URL or as \?user=/],
    ['postgres:///db?host=/s&port=0', /port must be a number from 1 to 65535/],
    ['postgres:///db?host=/s&port=x', /port must be a number from 1 to 65535/],
    ['postgres://h/db#x', /no #fragment/],
    ['postgres://h/db%zz', /bad percent-escape/],
    ['postgres://h/db?application_name=', /application_name is empty/],
  ])('refuses %s', (text, why) => {
    expect(failure(text).message).toMatch(why);
  });

  it('never puts the password in an error, however the URL is broken', () => {
    for (const text of [
      `postgres://u:${SECRET}@h:99999/db`,
      `postgres://u:${ENC}@h/db?nope=1`,
      `postgres://u:${ENC}@h/db?sslmode=${ENC}x`,
      `postgres://u:${ENC}@h/db?password=${ENC}`,
      `postgres://u:${SECRET}#@h/db`,
      `postgres://u:${ENC}@h/a/b`,
    ]) {
      const err = failure(text);
      expect(err.message).not.toContain('s3cret');
      expect(err.message).not.toContain('w0rd');
    }
    expect(failure(`postgres://u@h/db?password=${ENC}`).message).toMatch(/password is not accepted.*PGPASSWORD/);
  });

  it('never shows the password when a target is printed, inspected or serialised', () => {
    const t = pg(`postgres://u:${ENC}@h/db`);
    expect(JSON.stringify(t)).not.toContain('s3cret');
    expect(inspect(t, { depth: 5 })).not.toContain('s3cret');
    expect(`${String(t.password)}`).toBe('[redacted]');
  });
});

describe('parseDbTarget: where the password comes from', () => {
  const good = file('pw-good', `${SECRET}\n`);

  it('URL first, then the password file, then PGPASSWORD', () => {
    const env = { PGPASSWORD: 'from-env', FLIGHTREC_DB_PASSWORD_FILE: good };
    expect(pg('postgres://u:fromurl@h/db', { env, passwordFile: good }).password?.reveal()).toBe('fromurl');
    const fromFile = pg('postgres://u@h/db', { env, passwordFile: good });
    expect(fromFile.password?.reveal()).toBe(SECRET);
    expect(fromFile).toMatchObject({ passwordSource: 'file', passwordFile: good });
    expect(pg('postgres://u@h/db', { env }).passwordSource).toBe('file');
    expect(pg('postgres://u@h/db', { env: { PGPASSWORD: 'from-env' } })).toMatchObject({
      passwordSource: 'PGPASSWORD',
    });
    expect(pg('postgres://u@h/db', { env: { PGPASSWORD: 'from-env' } }).password?.reveal()).toBe('from-env');
    expect(pg('postgres://u@h/db', { env: { PGPASSWORD: '' } }).passwordSource).toBe('none');
  });

  it('the flag or config file wins over FLIGHTREC_DB_PASSWORD_FILE', () => {
    const other = file('pw-other', 'other');
    const t = pg('postgres://u@h/db', { env: { FLIGHTREC_DB_PASSWORD_FILE: other }, passwordFile: good });
    expect(t.password?.reveal()).toBe(SECRET);
  });

  it('does not read a password file when the URL holds the password', () => {
    expect(pg('postgres://u:p@h/db', { env: NO_ENV, passwordFile: join(dir, 'missing') }).passwordSource).toBe('url');
  });

  it('refuses a missing, empty, multi-line, directory or group/world-readable file, saying how to fix it', () => {
    const missing = join(dir, 'missing');
    expect(failure('postgres://h/db', { env: NO_ENV, passwordFile: missing }).message).toBe(
      `cannot read database password file ${missing}: no such file`,
    );
    const empty = file('pw-empty', '\n');
    expect(failure('postgres://h/db', { env: NO_ENV, passwordFile: empty }).message).toMatch(/is empty$/);
    const two = file('pw-two', 'a\nb\n');
    expect(failure('postgres://h/db', { env: NO_ENV, passwordFile: two }).message).toMatch(/several lines/);
    const sub = join(dir, 'a-dir');
    mkdirSync(sub);
    expect(failure('postgres://h/db', { env: NO_ENV, passwordFile: sub }).message).toMatch(/not a regular file/);
    for (const mode of [0o640, 0o604, 0o660]) {
      const open = file(`pw-open-${mode.toString(8)}`, SECRET, mode);
      const err = failure('postgres://h/db', { env: NO_ENV, passwordFile: open });
      expect(err.message).toMatch(new RegExp(`mode 0${mode.toString(8)}.*chmod 600 `));
      expect(err.message).not.toContain('s3cret');
    }
  });
});

describe('pgPoolConfig: sslmode as libpq means it', () => {
  const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n');
  const cert = file('client.pem', 'CERT');
  const key = file('client.key', 'KEY');
  const config = (q: string): ReturnType<typeof pgPoolConfig> =>
    pgPoolConfig(pg(`postgres://u:pw@db.example:5432/d?${q}`));

  it('maps the connection settings', () => {
    const c = pgPoolConfig(pg('postgres://u:pw@db.example:5433/d?connect_timeout=3'), { max: 4 });
    expect(c).toEqual({
      host: 'db.example',
      port: 5433,
      database: 'd',
      user: 'u',
      password: 'pw',
      ssl: false,
      application_name: 'flightrec',
      connectionTimeoutMillis: 3000,
      max: 4,
    });
    expect(pgPoolConfig(pg('postgres://h')).password).toBeUndefined();
  });

  it('disable, allow and prefer connect without TLS; require encrypts without checking', () => {
    for (const m of ['disable', 'allow', 'prefer']) expect(config(`sslmode=${m}`).ssl).toBe(false);
    expect(config('sslmode=require').ssl).toEqual({ rejectUnauthorized: false });
  });

  it('verify-ca checks the chain against the CA file but not the host name', () => {
    const ssl = config(`sslmode=verify-ca&sslrootcert=${ca}`).ssl;
    if (ssl === false || ssl === true || ssl === undefined) throw new Error('no TLS options');
    expect(ssl.rejectUnauthorized).toBe(true);
    expect(ssl.ca).toContain('BEGIN CERTIFICATE');
    expect(ssl.checkServerIdentity).toBeTypeOf('function');
  });

  it('verify-full checks both (Node checks the host name by default); require with a CA file acts as verify-ca', () => {
    const full = config(`sslmode=verify-full&sslrootcert=${ca}`).ssl;
    expect(full).toMatchObject({ rejectUnauthorized: true, ca: expect.stringContaining('CA') });
    expect(full).not.toHaveProperty('checkServerIdentity');
    const req = config(`sslmode=require&sslrootcert=${ca}`).ssl;
    expect(req).toMatchObject({ rejectUnauthorized: true, checkServerIdentity: expect.any(Function) });
    expect(config('sslmode=verify-full&sslrootcert=system').ssl).toEqual({ rejectUnauthorized: true });
  });

  it('reads a client certificate and key', () => {
    expect(config(`sslmode=require&sslcert=${cert}&sslkey=${key}`).ssl).toEqual({
      rejectUnauthorized: false,
      cert: 'CERT',
      key: 'KEY',
    });
  });

  it('crosses to a worker thread as plain data (structured clone) and revives the same options', () => {
    const t = pg(`postgres://u:pw@db.example/d?sslmode=verify-ca&sslrootcert=${ca}`);
    expect(() => structuredClone(pgPoolConfig(t))).toThrow(/could not be cloned/);
    const data = structuredClone(pgPoolConfigData(t));
    expect(data.ssl).toMatchObject({ skipHostNameCheck: true, rejectUnauthorized: true });
    const revived = revivePoolConfig(data);
    expect(revived).toMatchObject({ host: 'db.example', password: 'pw', ssl: { rejectUnauthorized: true } });
    expect(revived.ssl).toHaveProperty('checkServerIdentity');
    expect(revived.ssl).not.toHaveProperty('skipHostNameCheck');
  });

  it('names an unreadable CA file', () => {
    const missing = join(dir, 'nope.pem');
    expect(() => config(`sslmode=verify-full&sslrootcert=${missing}`)).toThrow(
      `--db: cannot read the sslrootcert file ${missing}: no such file`,
    );
  });
});

describe('displayDbTarget and redaction', () => {
  it('prints the URL without the password, and no mask', () => {
    const t = pg(`postgres://alice:${ENC}@db.example.com/hist?sslmode=require&sslrootcert=/etc/ca.pem`);
    const shown = displayDbTarget(t);
    expect(shown).toBe('postgres://alice@db.example.com:5432/hist?sslmode=require&sslrootcert=/etc/ca.pem');
    expect(shown).not.toMatch(/\*/);
    expect(displayDbTarget(pg('postgresql://h'))).toBe('postgres://h:5432');
    const sqlite: DbTarget = { kind: 'sqlite', path: '/x/flightrec.db' };
    expect(displayDbTarget(sqlite)).toBe('/x/flightrec.db');
    expect(displayDbTarget(parseDbTargetText('pglite:///tmp/p'))).toBe('pglite:///tmp/p');
  });

  it('prints a form that parses back to the same target (the password aside)', () => {
    for (const text of [
      'postgres://u:pw@h/db',
      'postgresql://h',
      'postgres://me%40corp@[::1]:5433/my%20db?sslmode=verify-ca&sslrootcert=/etc/ca.pem&application_name=a%20b',
      'postgres://u@%2Fvar%2Frun:5433/db?connect_timeout=0',
      'postgres:///?host=/s&user=u&sslcert=/c&sslkey=/k',
    ]) {
      const { password: _password, passwordSource: _source, params: _params, ...t } = pg(text);
      const shown = displayDbTarget(parseDbTargetText(text));
      const { passwordSource, params: _p2, ...back } = pg(shown);
      expect(back, `${text} -> ${shown}`).toEqual(t);
      expect(passwordSource).toBe('none');
    }
  });

  it('removes the password, raw and encoded, and every URL password from a message', () => {
    const t = pg(`postgres://alice:${ENC}@h/db`);
    const msg = `connect to postgres://alice:${ENC}@h/db failed: password "${SECRET}" rejected; also postgresql://bob:hunter2@x/y`;
    const out = redactSecrets(msg, t);
    expect(out).not.toContain('s3cret');
    expect(out).not.toContain('hunter2');
    expect(out).toContain('postgres://alice@h/db');
    expect(out).toContain('postgresql://bob@x/y');
    expect(out).toContain('[redacted]');
  });

  it('removes the password of raw, even malformed, URL texts', () => {
    const raw = `postgres://u:${SECRET}@h:99999/db`;
    const out = redactDbTexts(`cannot open history database ${raw}: no such file`, [raw, './x.db']);
    expect(out).not.toContain('s3cret');
    expect(out).not.toContain('w0rd');
    expect(out).toContain('h:99999/db');
    expect(redactDbTexts('plain text', ['./x.db'])).toBe('plain text');
  });
});
