/**
 * Reading the PostgreSQL password from a file (`--db-password-file`, FLIGHTREC_DB_PASSWORD_FILE,
 * `database.passwordFile`). Like libpq's ~/.pgpass, a file that group or others may access is
 * refused: the password would not be secret. Errors name the file, never its content.
 */
import { readFileSync, statSync } from 'node:fs';
import { Secret } from '../../../api/client/secret.ts';
import { DbTargetError } from './target-types.ts';

/** Why a file operation failed, in words. */
export function fsReason(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return typeof code === 'string' ? code : 'unreadable';
}

/** The password in `path` (one line; a trailing newline is not part of it). */
export function readPasswordFile(path: string): Secret {
  const what = `database password file ${path}`;
  let text: string;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new DbTargetError(`${what} is not a regular file`);
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
      throw new DbTargetError(
        `${what} has mode ${mode}: group or others may access it; restrict it with chmod 600 ${path}`,
      );
    }
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof DbTargetError) throw err;
    throw new DbTargetError(`cannot read ${what}: ${fsReason(err)}`, { cause: err });
  }
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new DbTargetError(`${what} is empty`);
  if (/[\r\n]/.test(value)) throw new DbTargetError(`${what} holds several lines: it must hold the password alone`);
  return new Secret(value);
}
