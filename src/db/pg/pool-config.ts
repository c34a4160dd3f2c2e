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

/** The pg.Pool configuration of `target` (holds the password: never print it). */
export function pgPoolConfig(target: PostgresTarget, opts: PgPoolOptions = {}): PoolConfig {
  return {
    host: target.host,
    port: target.port,
    ...(target.database === undefined ? {} : { database: target.database }),
    ...(target.user === undefined ? {} : { user: target.user }),
    ...(target.password === undefined ? {} : { password: target.password.reveal() }),
    ssl: sslOptions(target),
    application_name: target.applicationName,
    connectionTimeoutMillis: target.connectTimeoutSeconds * 1000,
    ...(opts.max === undefined ? {} : { max: opts.max }),
  };
}

/** The TLS options of `target`, or false for a plain connection. */
export function sslOptions(target: PostgresTarget): false | ConnectionOptions {
  // libpq never uses TLS on a unix socket
  if (target.socket) return false;
  const mode = target.sslmode === 'require' && hasCaFile(target) ? 'verify-ca' : target.sslmode;
  if (mode === 'disable' || mode === 'allow' || mode === 'prefer') return false;
  const client =
    target.sslcert === undefined || target.sslkey === undefined
      ? {}
      : { cert: readTlsFile(target.sslcert, 'sslcert'), key: readTlsFile(target.sslkey, 'sslkey') };
  if (mode === 'require') return { rejectUnauthorized: false, ...client };
  const ca = hasCaFile(target) ? { ca: readTlsFile(target.sslrootcert!, 'sslrootcert') } : {};
  if (mode === 'verify-ca') return { rejectUnauthorized: true, ...ca, ...client, checkServerIdentity: () => undefined };
  return { rejectUnauthorized: true, ...ca, ...client };
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
