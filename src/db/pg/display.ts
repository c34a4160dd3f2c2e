/** The printable form of a database target: never the password, nor a mask that hints its length. */
import type { DbTarget } from './target-types.ts';

const enc = (s: string): string => encodeURIComponent(s);

/** `postgres://user@host:5432/db?sslmode=require` (no password), `pglite://memory`, or the SQLite path. */
export function displayDbTarget(target: DbTarget): string {
  if (target.kind === 'sqlite') return target.path;
  if (target.kind === 'pglite') return target.dir === 'memory' ? 'pglite://memory' : `pglite://${target.dir}`;
  const user = target.user === undefined ? '' : `${enc(target.user)}@`;
  const host = target.socket ? '' : target.host.includes(':') ? `[${target.host}]` : enc(target.host);
  const db = target.database === undefined ? '' : `/${enc(target.database)}`;
  const query = target.params.map(([k, v]) => `${k}=${enc(v).replaceAll('%2F', '/')}`).join('&');
  return `postgres://${user}${host}:${target.port}${db}${query === '' ? '' : `?${query}`}`;
}
