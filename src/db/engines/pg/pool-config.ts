/**
 * The node-postgres pool settings of a target, sslmode as libpq means it: `disable` (and `allow`,
 * `prefer`: pg cannot fall back, so they connect without TLS) no TLS; `require` encrypted, the
 * certificate not checked (checked against sslrootcert when one is given, as libpq does);
 * `verify-ca` the chain checked, not the host name; `verify-full` both. Reads the CA and client
 * certificate files named in the URL.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { PoolConfig } from 'pg';
import { fsReason } from './password-file.ts';
import { DbTargetError, type PostgresTarget } from './target-types.ts';

/** Options of pgPoolConfig. */
export interface PgPoolOptions {
  /** most connections in the pool (pg's default: 10) */
  readonly max?: number;
}

/** TLS options that survive a structured clone (no function): `skipHostNameCheck` is verify-ca. */
export type SslData =
  false | (Omit<ConnectionOptions, 'checkServerIdentity'> & { readonly skipHostNameCheck: boolean });

/** pgPoolConfig in a form that can be sent to a worker thread (workerData, postMessage); revive it there. */
export type PgPoolConfigData = Omit<PoolConfig, 'ssl'> & { readonly ssl: SslData };

/** The pg.Pool configuration of `target` (holds the password: never print it). */
export function pgPoolConfig(target: PostgresTarget, opts: PgPoolOptions = {}): PoolConfig {
  return revivePoolConfig(pgPoolConfigData(target, opts));
}

/** The pool configuration as plain data (structured-clone safe): what a worker thread is given. */
export function pgPoolConfigData(target: PostgresTarget, opts: PgPoolOptions = {}): PgPoolConfigData {
  return {
    host: target.host,
    port: target.port,
    ...(target.database === undefined ? {} : { database: target.database }),
    ...(target.user === undefined ? {} : { user: target.user }),
    ...(target.password === undefined ? {} : { password: target.password.reveal() }),
    ssl: sslData(target),
    application_name: target.applicationName,
    connectionTimeoutMillis: target.connectTimeoutSeconds * 1000,
    ...(opts.max === undefined ? {} : { max: opts.max }),
  };
}

/** The pg.Pool configuration of `data` (in the worker thread): verify-ca skips the host name check. */
export function revivePoolConfig(data: PgPoolConfigData): PoolConfig {
  const { ssl, ...rest } = data;
  if (ssl === false) return { ...rest, ssl: false };
  const { skipHostNameCheck, ...tls } = ssl;
  return { ...rest, ssl: skipHostNameCheck ? { ...tls, checkServerIdentity: () => undefined } : tls };
}

function sslData(target: PostgresTarget): SslData {
  // libpq never uses TLS on a unix socket
  if (target.socket) return false;
  const mode = target.sslmode === 'require' && hasCaFile(target) ? 'verify-ca' : target.sslmode;
  if (mode === 'disable' || mode === 'allow' || mode === 'prefer') return false;
  const client =
    target.sslcert === undefined || target.sslkey === undefined
      ? {}
      : { cert: readTlsFile(target.sslcert, 'sslcert'), key: readTlsFile(target.sslkey, 'sslkey') };
  // require: encrypted, nothing checked (rejectUnauthorized false: neither the chain nor the name)
  if (mode === 'require') return { rejectUnauthorized: false, skipHostNameCheck: false, ...client };
  const ca = hasCaFile(target) ? { ca: readTlsFile(target.sslrootcert!, 'sslrootcert') } : {};
  return { rejectUnauthorized: true, skipHostNameCheck: mode === 'verify-ca', ...ca, ...client };
}

function hasCaFile(target: PostgresTarget): boolean {
  return target.sslrootcert !== undefined && target.sslrootcert !== 'system';
}

function readTlsFile(path: string, param: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new DbTargetError(`--db: cannot read the ${param} file ${path}: ${fsReason(err)}`, { cause: err });
  }
}
