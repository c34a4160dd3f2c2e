/** The printable form of a database target: never the password, nor a mask that hints its length. */
import type { DbTarget } from './target-types.ts';

const enc = (s: string): string => encodeURIComponent(s);

/** `postgres://user@host:5432/db?sslmode=require` (no password), `pglite://memory`, or the SQLite path. */
export function displayDbTarget(target: DbTarget): string {
  if (target.kind === 'sqlite') return target.path;
  if (target.kind === 'pglite') return target.dir === 'memory' ? 'pglite://memory' : `pglite://${target.dir}`;
  const rest = target.params.filter(([k]) => k !== 'host' && k !== 'port' && k !== 'user');
  const db = target.database === undefined ? '' : `/${enc(target.database)}`;
  if (target.socket) {
    // a URL cannot hold a user or a port without a host: a socket's go in the query, as libpq allows
    const user = target.user === undefined ? [] : [['user', target.user] as const];
    const params = [['host', target.host] as const, ['port', String(target.port)] as const, ...user, ...rest];
    return `postgres://${db === '' ? '/' : db}?${query(params)}`;
  }
  const user = target.user === undefined ? '' : `${enc(target.user)}@`;
  const host = target.host.includes(':') ? `[${target.host}]` : enc(target.host);
  return `postgres://${user}${host}:${target.port}${db}${rest.length === 0 ? '' : `?${query(rest)}`}`;
}

function query(params: readonly (readonly [string, string])[]): string {
  return params.map(([k, v]) => `${k}=${enc(v).replaceAll('%2F', '/')}`).join('&');
}
