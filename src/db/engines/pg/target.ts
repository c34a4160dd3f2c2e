/**
 * `--db` / FLIGHTREC_DB: an SQLite file, a `postgres://` (or `postgresql://`) URL, or `pglite://`
 * (an in-process PostgreSQL, for tests). The password comes from the URL, else a password file,
 * else PGPASSWORD. No message ever holds the password: errors name the parameter, not the URL.
 */
import { Secret } from '../../../api/client/secret.ts';
import { readPasswordFile } from './password-file.ts';
import {
  DbTargetError,
  DEFAULT_APPLICATION_NAME,
  DEFAULT_CONNECT_TIMEOUT_SECONDS,
  SSL_MODES,
  type DbTarget,
  type PostgresTarget,
  type SslMode,
} from './target-types.ts';

export * from './target-types.ts';
export { displayDbTarget } from './display.ts';
export { redactSecrets, redactDbTexts } from './redact.ts';
export {
  pgPoolConfig,
  pgPoolConfigData,
  revivePoolConfig,
  type PgPoolConfigData,
  type PgPoolOptions,
  type SslData,
} from './pool-config.ts';

/** Options of parseDbTarget. */
export interface ParseDbTargetOptions {
  /** the environment (PGPASSWORD, FLIGHTREC_DB_PASSWORD_FILE); default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** the password file named by a flag or the config (wins over FLIGHTREC_DB_PASSWORD_FILE) */
  readonly passwordFile?: string;
}

const URL_FORM = 'postgres://USER@HOST:PORT/DATABASE?sslmode=require';
const PARAMS = [
  'host',
  'port',
  'user',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'application_name',
  'connect_timeout',
];

/** True when `text` names a database server (postgres:, postgresql:, pglite:) rather than an SQLite file. */
export function isDbUrl(text: string): boolean {
  return /^(postgres|postgresql|pglite):/i.test(text);
}

/** The target `text` names, with the password resolved (URL, else password file, else PGPASSWORD). */
export function parseDbTarget(text: string, opts: ParseDbTargetOptions = {}): DbTarget {
  const target = parseDbTargetText(text);
  if (target.kind !== 'postgres' || target.password !== undefined) return target;
  const env = opts.env ?? process.env;
  const file = opts.passwordFile ?? nonEmpty(env.FLIGHTREC_DB_PASSWORD_FILE);
  if (file !== undefined) {
    return { ...target, password: readPasswordFile(file), passwordSource: 'file', passwordFile: file };
  }
  const fromEnv = nonEmpty(env.PGPASSWORD);
  if (fromEnv !== undefined) return { ...target, password: new Secret(fromEnv), passwordSource: 'PGPASSWORD' };
  return target;
}

/** The target `text` names, reading nothing (the password only if the URL holds one): for printing. */
export function parseDbTargetText(text: string): DbTarget {
  if (!isDbUrl(text)) {
    if (text === '') throw new DbTargetError('--db is empty: give an SQLite file or a postgres:// URL');
    return { kind: 'sqlite', path: text };
  }
  const scheme = text.slice(0, text.indexOf(':')).toLowerCase();
  if (!text.slice(scheme.length + 1).startsWith('//')) {
    throw new DbTargetError(`--db: a ${scheme} URL starts with ${scheme}:// (e.g. ${URL_FORM})`);
  }
  if (scheme === 'pglite') return pgliteTarget(text.slice('pglite://'.length));
  return postgresTarget(text);
}

function pgliteTarget(rest: string): DbTarget {
  if (rest === 'memory') return { kind: 'pglite', dir: 'memory' };
  if (rest.startsWith('/') && !rest.includes('?') && !rest.includes('#')) return { kind: 'pglite', dir: rest };
  throw new DbTargetError('--db: a pglite URL is pglite://memory or pglite:///ABSOLUTE/DIRECTORY');
}

function postgresTarget(text: string): PostgresTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DbTargetError(
      `--db: not a valid PostgreSQL URL (expected ${URL_FORM}; the port must be 1-65535, and @ : / ? # in ` +
        'the user or password must be percent-encoded)',
    );
  }
  if (url.hash !== '') throw new DbTargetError('--db: a PostgreSQL URL has no #fragment (percent-encode # as %23)');
  const params = queryParams(url);
  const get = (k: string): string | undefined => params.find(([p]) => p === k)?.[1];
  const host = hostOf(url, get('host'));
  const password = decoded(url.password, 'password');
  const user = oneOf(decoded(url.username, 'user name'), get('user'), 'user');
  const database = databaseOf(url.pathname);
  const sslcert = get('sslcert');
  const sslkey = get('sslkey');
  if ((sslcert === undefined) !== (sslkey === undefined)) {
    throw new DbTargetError('--db: sslcert and sslkey go together (a client certificate needs its key)');
  }
  const sslrootcert = get('sslrootcert');
  const applicationName = get('application_name');
  return {
    kind: 'postgres',
    ...host,
    port: portOf(oneOf(url.port, get('port'), 'port')),
    ...(database === undefined ? {} : { database }),
    ...(user === '' ? {} : { user }),
    ...(password === '' ? { passwordSource: 'none' } : { password: new Secret(password), passwordSource: 'url' }),
    sslmode: sslModeOf(get('sslmode')),
    params,
    ...(sslrootcert === undefined ? {} : { sslrootcert }),
    ...(sslcert === undefined || sslkey === undefined ? {} : { sslcert, sslkey }),
    applicationName: applicationName ?? DEFAULT_APPLICATION_NAME,
    connectTimeoutSeconds: connectTimeoutOf(get('connect_timeout')),
  };
}

function queryParams(url: URL): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of url.searchParams) {
    if (key === 'password') {
      throw new DbTargetError(
        '--db: the query parameter password is not accepted: write USER:PASSWORD@ in the URL, or use ' +
          '--db-password-file or PGPASSWORD',
      );
    }
    if (!PARAMS.includes(key)) {
      const shown = /^[a-z_]{1,32}$/i.test(key) ? ` ${JSON.stringify(key)}` : '';
      throw new DbTargetError(`--db: unknown query parameter${shown} (known: ${PARAMS.join(', ')})`);
    }
    if (out.some(([k]) => k === key)) throw new DbTargetError(`--db: query parameter ${key} is given twice`);
    if (value === '') throw new DbTargetError(`--db: query parameter ${key} is empty`);
    out.push([key, value]);
  }
  return out;
}

function hostOf(url: URL, hostParam: string | undefined): { host: string; socket: boolean } {
  if (hostParam !== undefined && url.hostname !== '') {
    throw new DbTargetError('--db: give the host either in the URL or as ?host=, not both');
  }
  const host = hostParam ?? decoded(url.hostname, 'host');
  if (host.includes(',')) throw new DbTargetError('--db: several hosts (HOST1,HOST2) are not supported: give one');
  if (host === '') return { host: 'localhost', socket: false };
  if (host.startsWith('/')) return { host, socket: true };
  if (hostParam !== undefined) throw new DbTargetError('--db: ?host= names a unix socket directory (an absolute path)');
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, socket: false };
}

/** The value given in the URL or as a query parameter (not both), '' when neither. */
function oneOf(inUrl: string, param: string | undefined, name: string): string {
  if (param === undefined) return inUrl;
  if (inUrl !== '') throw new DbTargetError(`--db: give the ${name} either in the URL or as ?${name}=, not both`);
  return param;
}

function portOf(text: string): number {
  if (text === '') return 5432;
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : 0;
  if (port < 1 || port > 65535) throw new DbTargetError('--db: the port must be a number from 1 to 65535');
  return port;
}

function databaseOf(pathname: string): string | undefined {
  const path = pathname.replace(/^\//, '');
  if (path.includes('/'))
    throw new DbTargetError('--db: the database name is one path segment (percent-encode / as %2F)');
  const name = decoded(path, 'database name');
  return name === '' ? undefined : name;
}

function sslModeOf(value: string | undefined): SslMode {
  if (value === undefined) return 'prefer';
  const mode = SSL_MODES.find((m) => m === value);
  if (mode === undefined) {
    // the value is echoed only when it looks like a mistyped word (never a pasted secret)
    const shown = /^[a-z-]{1,16}$/i.test(value) ? ` ${JSON.stringify(value)}` : '';
    throw new DbTargetError(`--db: sslmode${shown} is not one of ${SSL_MODES.join(', ')}`);
  }
  return mode;
}

function connectTimeoutOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_CONNECT_TIMEOUT_SECONDS;
  if (!/^[0-9]{1,6}$/.test(value)) {
    throw new DbTargetError('--db: connect_timeout is a whole number of seconds (0: wait forever)');
  }
  return Number(value);
}

function decoded(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new DbTargetError(`--db: the ${what} in the URL holds a bad percent-escape (write % as %25)`);
  }
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}
