/** What `--db` names: an SQLite file, a PostgreSQL server, or an in-process PGlite (tests). */
import type { Secret } from '../../../api/client/secret.ts';

/** libpq's sslmode values (https://www.postgresql.org/docs/current/libpq-ssl.html). */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

/** One sslmode. */
export type SslMode = (typeof SSL_MODES)[number];

/** Where the password of a PostgreSQL target came from. */
export type PasswordSource = 'url' | 'file' | 'PGPASSWORD' | 'none';

/** A PostgreSQL server, as a `postgres://` URL names it. */
export interface PostgresTarget {
  readonly kind: 'postgres';
  /** a host name, an IP address (IPv6 without brackets), or a unix socket directory when `socket` */
  readonly host: string;
  readonly socket: boolean;
  readonly port: number;
  /** the database; undefined: the server's default (the user name) */
  readonly database?: string;
  /** undefined: the driver's default (PGUSER, else the OS user) */
  readonly user?: string;
  /** the password (prints as `[redacted]`); undefined: none (trust, peer or certificate authentication) */
  readonly password?: Secret;
  readonly passwordSource: PasswordSource;
  /** the password file read, when passwordSource is `file` */
  readonly passwordFile?: string;
  readonly sslmode: SslMode;
  /** the query parameters as given (no secret among them), in URL order, for the printable form */
  readonly params: readonly (readonly [string, string])[];
  /** CA file (`system`: the system's CAs) */
  readonly sslrootcert?: string;
  /** client certificate and key files */
  readonly sslcert?: string;
  readonly sslkey?: string;
  readonly applicationName: string;
  /** connect_timeout in seconds (0: wait forever) */
  readonly connectTimeoutSeconds: number;
}

/** A database target. */
export type DbTarget =
  | { readonly kind: 'sqlite'; readonly path: string }
  | PostgresTarget
  | { readonly kind: 'pglite'; readonly dir: string | 'memory' };

export { DbTargetError } from '../../errors.ts';

/** The connect_timeout used when the URL gives none, seconds (libpq waits forever; a collector should not). */
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 10;

/** The application_name the server shows in pg_stat_activity, unless the URL gives one. */
export const DEFAULT_APPLICATION_NAME = 'flightrec';
