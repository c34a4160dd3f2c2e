/** Shared helpers of the filter tests: fixture records, a synthetic resource, an SQLite mirror. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { parse } from 'yaml';
import {
  f,
  message,
  RESOURCES,
  type FieldType,
  type MessageSchema,
  type ResourceSpec,
} from '../../src/api/schema/index.ts';
import { decodeRecord } from '../../src/api/wire/decode.ts';
import { listFieldPaths, type ResourceRef, type SqlColumn, type SqlColumnMap } from '../../src/filter/index.ts';
import { resolvePath } from '../../src/filter/field-paths.ts';

/** The fixture directory. */
export const FIXTURES = fileURLToPath(new URL('../fixtures/filter/', import.meta.url));

/** A synthetic resource with one field of every integer width (no real resource has uint32/uint64). */
export const TEST_WIDTHS: ResourceSpec = {
  name: 'test-widths',
  schema: message('Widths', { name: f.string(), i32: f.int32(), u32: f.uint32(), i64: f.int64(), u64: f.uint64() }),
  key: ['name'],
  operations: [],
  doc: 'integer widths (tests only)',
};

/** A resource reference from a fixture's resource name. */
export function resourceRef(name: string): ResourceRef {
  if (name === 'test-widths') return TEST_WIDTHS;
  if (!Object.hasOwn(RESOURCES, name)) throw new Error(`unknown resource in fixture: ${name}`);
  return name as ResourceRef;
}

/** A decoded fixture record and its label. */
export interface Rec {
  readonly id: string;
  readonly row: Record<string, unknown>;
}

const cache = new Map<string, Rec[]>();

/** The decoded records of a resource (test/fixtures/filter/records/<name>.yaml). */
export function loadRecords(name: string): Rec[] {
  let recs = cache.get(name);
  if (recs === undefined) {
    const raw = parse(readFileSync(`${FIXTURES}records/${name}.yaml`, 'utf8')) as Record<string, unknown>[];
    const ref = resourceRef(name);
    const schema: MessageSchema = typeof ref === 'string' ? RESOURCES[ref].schema : ref.schema;
    recs = raw.map(({ _id, ...wire }) => ({ id: String(_id), row: decodeRecord(schema, wire) }));
    cache.set(name, recs);
  }
  return recs;
}

/** How the SQLite mirror stores values. */
export interface MirrorOptions {
  /** enums as full names (TEXT) or numbers (INTEGER) */
  enums: 'name' | 'number';
  /** store default values as NULL (what a store may do for absent primitives) */
  nullDefaults: boolean;
  /** int64 columns as decimal TEXT (like json_extract of a wire answer) */
  int64AsText: boolean;
}

/** A table holding every plain scalar path of a resource, one row per record, plus its column map. */
export interface Mirror {
  readonly columns: SqlColumnMap;
  /** indexes of the rows the WHERE clause selects */
  select(where: string, params: readonly unknown[]): Set<number>;
  close(): void;
}

function valueAt(row: unknown, wires: readonly string[]): unknown {
  let v = row;
  for (const w of wires) v = v === undefined || v === null ? undefined : (v as Record<string, unknown>)[w];
  return v;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Builds an in-memory SQLite table mirroring `rows` of a resource. */
export function buildMirror(resource: ResourceRef, rows: readonly object[], opts: MirrorOptions): Mirror {
  const db = new Database(':memory:');
  const paths = listFieldPaths(resource).filter((p) => p.server);
  const cols: { name: string; wires: string[]; type: FieldType; col: SqlColumn; optional: boolean }[] = [];
  const columns: Record<string, SqlColumn> = {};
  paths.forEach((p, i) => {
    const segments = p.path.split('.').map((text) => ({ text, start: 0, end: 0 }));
    const resolved = resolvePath(resource, { segments, start: 0, end: 0 }, 'server', p.path);
    const wires = resolved.steps.map((s) => (s.kind === 'field' ? s.wire : ''));
    const t = resolved.type;
    const sqlType: SqlColumn['type'] =
      t.kind === 'string'
        ? 'text'
        : t.kind === 'bool'
          ? 'bool'
          : t.kind === 'enum'
            ? opts.enums === 'name'
              ? 'enum_name'
              : 'enum_number'
            : 'integer';
    const col: SqlColumn = { sql: `t.c${i}`, type: sqlType };
    columns[p.path] = col;
    cols.push({ name: `c${i}`, wires, type: t, col, optional: resolved.optional });
  });
  const decl = (c: (typeof cols)[number]): string => {
    if (c.col.type === 'text' || c.col.type === 'enum_name') return `${c.name} TEXT`;
    if (opts.int64AsText && (c.type.kind === 'int64' || c.type.kind === 'uint64')) return `${c.name} TEXT`;
    return `${c.name} INTEGER`;
  };
  db.exec(`CREATE TABLE t (idx INTEGER PRIMARY KEY, ${cols.map(decl).join(', ')})`);
  const insert = db.prepare(`INSERT INTO t VALUES (?, ${cols.map(() => '?').join(', ')})`);
  const store = (c: (typeof cols)[number], v: unknown): unknown => {
    if (v === undefined || v === null) return null;
    const t = c.type;
    if (t.kind === 'bool') return opts.nullDefaults && v === false ? null : v ? 1 : 0;
    if (t.kind === 'enum') {
      if (opts.nullDefaults && v === t.table.values[0]) return null;
      return opts.enums === 'name' ? v : Math.max(0, t.table.values.indexOf(v as string));
    }
    if (opts.nullDefaults && !c.optional && (v === '' || v === 0 || v === 0n)) return null;
    if (typeof v === 'bigint') {
      if (opts.int64AsText && (t.kind === 'int64' || t.kind === 'uint64')) return v.toString();
      return v < INT64_MIN || v > INT64_MAX ? v.toString() : v;
    }
    return v;
  };
  db.transaction(() => {
    rows.forEach((row, i) => insert.run(i, ...cols.map((c) => store(c, valueAt(row, c.wires)))));
  })();
  return {
    columns,
    select(where, params) {
      const out = db
        .prepare(`SELECT idx FROM t WHERE ${where}`)
        .pluck()
        .all(...params) as number[];
      return new Set(out);
    },
    close: () => db.close(),
  };
}
