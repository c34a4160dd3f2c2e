/**
 * The store's engines, chosen in one place. A `--db` value is claimed by the first engine that
 * recognises it (PostgreSQL: `postgres://`, `postgresql://`, `pglite://`); SQLite, the file
 * engine, takes the rest. This is the only module that imports an engine's implementation
 * (`src/db/engines/pg/` is imported from here alone: test/architecture/imports.test.ts), so the rest of
 * the program asks the engine of a text instead of parsing it.
 */
import { postgresEngine } from './pg/engine.ts';
import { droppedPartitionsOf } from './pg/partition-retention.ts';
import { redactSecrets } from './pg/redact.ts';
import { sqliteEngine } from './sqlite.ts';
import type { FlightrecDb, OpenOptions, StoreEngine } from './store-engine.ts';

/** Every engine, the file engine last (it claims what no other does). */
export const ENGINES: readonly StoreEngine[] = [postgresEngine, sqliteEngine];

/** The engine of a `--db` value. */
export function engineFor(text: string): StoreEngine {
  return ENGINES.find((e) => e.claims(text)) ?? sqliteEngine;
}

/** True when `text` names a database server (a URL) rather than a file. */
export function isDbUrl(text: string): boolean {
  return !engineFor(text).file;
}

/**
 * Opens (creating with mode 0600 and migrating, unless read-only) a history database: an SQLite
 * file, or a PostgreSQL database given as a postgres:// URL.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): FlightrecDb {
  return engineFor(path).open(path, opts);
}

/** `text` as it may be printed: a file as given, a URL without its password; throws DbTargetError when malformed. */
export function shownDbTarget(text: string): string {
  return engineFor(text).shown(text);
}

/** `message` without the password of any of the database texts `texts` (URLs as typed), nor of any URL. */
export function redactDbTexts(message: string, texts: readonly string[]): string {
  return ENGINES.reduce((out, e) => e.redact(out, texts), message);
}

/** `message` without the password of any URL in it (the last guard before stderr). */
export function redactUrlPasswords(message: string): string {
  return redactSecrets(message, undefined);
}

/** The partitions a `retention-partitions` maintenance-log entry dropped (its cut-off is the end of their day). */
export { droppedPartitionsOf };
