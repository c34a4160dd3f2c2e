/** ctrl-s: writes the current view next to the database as CSV (tables) or JSON, and says where. */
import { existsSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { JsonNumber, type JsonValue } from '../../api/codec/lossless-json.ts';
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import { csvLine } from '../../report/render/csv.ts';
import { formatJson } from '../../report/render/json.ts';
import { engineFor } from '../../db/engines/registry.ts';
import type { ViewRef } from '../state/views.ts';
import type { Export } from './screen.ts';

/** The view as a file-name part: `connections`, `connection-<uid>`, `shadow-topic-<link>-<topic>`. */
export function viewSlug(view: ViewRef): string {
  const parts: string[] = [view.kind];
  if (view.kind === 'connection') parts.push(view.uid);
  if (view.kind === 'shadow-link') parts.push(view.link);
  if (view.kind === 'shadow-topic') parts.push(view.link, view.topic);
  return parts
    .join('-')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, 80);
}

/** The text of an export. */
export function exportText(data: Export): string {
  if (data.format === 'csv') return [csvLine(data.header), ...data.rows.map((r) => csvLine(r))].join('');
  return `${formatJson(jsonTree(data.data))}\n`;
}

/** A view's data as a JSON tree: bigints as decimal strings, number literals kept as written, no undefined members. */
function jsonTree(v: unknown): JsonValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof JsonNumber) return v;
  if (Array.isArray(v)) return v.map((e: unknown) => (e === undefined ? null : jsonTree(e)));
  if (typeof v === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, e] of Object.entries(v)) if (e !== undefined && typeof e !== 'function') out[k] = jsonTree(e);
    return out;
  }
  return null;
}

/**
 * The directory and file stem of a database's exports: next to an SQLite file; for a server URL,
 * the working directory and the database name (the URL, its password, never becomes a path).
 */
function exportPlace(database: string): { dir: string; stem: string } {
  const engine = engineFor(database);
  if (engine.file) return { dir: dirname(database), stem: basename(database, extname(database)) };
  let name = 'flightrec';
  try {
    name = engine.databaseName(database) ?? name;
  } catch {
    // a URL the store could not have opened: the default stem
  }
  return { dir: '.', stem: name.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/^\.+/, '_') };
}

/** A free path `<db name>-<view>-<instant>.<ext>` in the database's directory. */
export function exportPath(database: string, view: ViewRef, at: bigint | undefined, format: Export['format']): string {
  const { dir, stem } = exportPlace(database);
  const when =
    at === undefined
      ? 'empty'
      : formatTimestamp(at)
          .replace(/\.0+Z$/, 'Z')
          .replace(/[:]/g, '');
  const base = `${stem}-${viewSlug(view)}-${when}`;
  let path = join(dir, `${base}.${format}`);
  for (let n = 1; existsSync(path); n++) path = join(dir, `${base}-${n}.${format}`);
  return path;
}

/** Writes an export next to the database; returns the path written. */
export function saveExport(database: string, view: ViewRef, at: bigint | undefined, data: Export): string {
  const path = exportPath(database, view, at, data.format);
  // owner only, as every file flightrec writes; never over a file that exists (wx)
  writeFileSync(path, exportText(data), { flag: 'wx', mode: 0o600 });
  return path;
}
