/**
 * Why a poll could not be written, and what is stored instead. A failure of the store itself
 * (disk full, read-only, I/O error, busy) is a refusal: the record is kept and retried. Any
 * other failure (a value that cannot be serialised, nesting too deep, a bug) belongs to the
 * record: it is stored as a failed poll with the reason and its raw bytes, so that one poisoned
 * record never blocks the ones behind it.
 */
import { OPERATIONS } from '../../api/schema/operations.ts';
import { defaultMessage } from '../../api/wire/defaults.ts';
import type { PollFailure, PollRecord } from '../poll-record.ts';

/** SQLite result codes (primary and extended, by prefix) that mean the store refuses writes. */
const REFUSING_SQLITE = [
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_PERM',
  'SQLITE_NOLFS',
  'SQLITE_PROTOCOL',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_NOMEM',
  'SQLITE_AUTH',
  'SQLITE_INTERRUPT',
] as const;

/** System error codes that mean the store (its disk, its directory) refuses writes. */
const REFUSING_SYSTEM: ReadonlySet<string> = new Set([
  'ENOSPC',
  'EDQUOT',
  'EIO',
  'EROFS',
  'EACCES',
  'EPERM',
  'EBUSY',
  'ENOENT',
  'EFBIG',
]);

/** Most raw bytes kept with a poll stored in place of one that could not be stored. */
export const MAX_SUBSTITUTE_RAW = 8 * 1024 * 1024;

/** The code of an error, looking through `cause`. */
function codeOf(err: unknown): string {
  for (const e of causeChain(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
  }
  return '';
}

/** `err` and the errors it was caused by, five at most. */
function* causeChain(err: unknown): Generator<object> {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    yield e;
    e = (e as { cause?: unknown }).cause;
  }
}

/**
 * PostgreSQL SQLSTATEs (classes by their two first characters, or whole codes) that mean the
 * server refuses writes for now, whatever the record: connection exceptions, insufficient
 * resources (disk full, out of memory, too many connections), operator intervention (shutdown,
 * cancelled by a statement timeout), system errors (I/O), a read-only transaction (a standby, a
 * read-only database), serialization failures and deadlocks, a lock not granted, missing
 * privileges or database, failed authentication, corrupted data or index.
 */
const REFUSING_PG_CLASSES = ['08', '53', '57', '58', '40', '28', '3D'] as const;
const REFUSING_PG_CODES: ReadonlySet<string> = new Set(['25006', '55P03', '42501', 'XX001', 'XX002']);

/** Whether `err` (or an error it was caused by) is a PostgreSQL connection failure. */
function lostConnection(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if ((e as { name?: unknown }).name === 'PgError' && (e as { connection?: unknown }).connection === true)
      return true;
  }
  return false;
}

/** The refusal code when `err` means the store refuses writes (SQLITE_FULL, ENOSPC, 08006, ...), else undefined. */
export function refusalCode(err: unknown): string | undefined {
  if (lostConnection(err)) return codeOf(err) || 'connection';
  const code = codeOf(err);
  if (
    /^[0-9A-Z]{5}$/.test(code) &&
    (REFUSING_PG_CLASSES.some((c) => code.startsWith(c)) || REFUSING_PG_CODES.has(code))
  )
    return code;
  if (REFUSING_SQLITE.some((p) => code === p || code.startsWith(`${p}_`))) return code;
  if (REFUSING_SYSTEM.has(code)) return code;
  // better-sqlite3 throws a TypeError once its connection is closed
  if (err instanceof TypeError && /database connection is not open/i.test(err.message)) return 'closed';
  return undefined;
}

/** One line saying why a write failed: the error's message, with its code when it has one. */
export function describeWriteError(err: unknown): string {
  const plain = err instanceof Error && (err.name === 'Error' || err.name === 'SqliteError');
  const message = err instanceof Error ? `${plain ? '' : `${err.name}: `}${err.message}` : String(err);
  const code = codeOf(err);
  const flat = message.replace(/\s+/g, ' ').slice(0, 500);
  return code !== '' && !flat.includes(code) ? `${flat} (${code})` : flat;
}

/**
 * The failed poll stored in place of a record that could not be stored: same cluster,
 * operation, target, request and times; the reason as message; the raw bytes, if any, up to
 * MAX_SUBSTITUTE_RAW. The last-resort `minimal` form has no raw bytes and the operation's
 * default request, in case the request itself was what could not be stored.
 */
export function substituteRecord(r: PollRecord, reason: string, minimal: boolean): PollRecord {
  const o = r.outcome;
  const before = o.ok ? '' : ` (the call had failed: ${o.code}: ${o.message.slice(0, 300)})`;
  const raw =
    minimal || o.raw === undefined
      ? undefined
      : o.raw.length > MAX_SUBSTITUTE_RAW
        ? o.raw.subarray(0, MAX_SUBSTITUTE_RAW)
        : o.raw;
  const truncated =
    raw !== undefined && o.raw !== undefined && raw.length < o.raw.length
      ? `; raw body truncated to its first ${raw.length} bytes`
      : '';
  const failure: PollFailure = {
    ok: false,
    code: 'internal',
    kind: 'unstorable',
    ...(o.ok || o.httpStatus === undefined ? {} : { httpStatus: o.httpStatus }),
    message: `the answer could not be stored as received: ${reason}${before}${truncated}`,
    ...(raw === undefined ? {} : { raw }),
    bytes: o.bytes,
  };
  const { coverage: _coverage, ...rest } = r;
  const request = minimal ? (defaultMessage(OPERATIONS[r.operation].request) as PollRecord['request']) : r.request;
  return { ...rest, request, outcome: failure };
}
