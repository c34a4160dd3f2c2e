/**
 * The module boundaries of docs/architecture.md, checked on the sources: every import (static,
 * type-only or dynamic) from one module of src/ to another must be an allowed edge.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createHistoryReader,
  openDatabase,
  openHistoryMaintenance,
  type HistoryMaintenance,
  type HistoryReader,
} from '../../src/db/index.ts';

const SRC = resolve(import.meta.dirname, '../../src');

/** Who may import whom (docs/architecture.md, "Who imports whom"). */
const ALLOWED: Record<string, readonly string[]> = {
  api: [],
  // the one launcher of worker threads
  threads: [],
  filter: ['api'],
  // the store declares its own SQL column types; report derives the pre-filter and passes it in
  db: ['api', 'threads'],
  collector: ['api', 'db'],
  report: ['api', 'filter', 'db', 'threads'],
  sim: ['api', 'filter'],
  tui: ['report', 'filter', 'db', 'api', 'threads'],
  // live alerts: the timeline's detectors over the store's reader, fed by the collector's hook
  alerts: ['api', 'db', 'report', 'collector', 'threads'],
  cli: ['api', 'filter', 'db', 'collector', 'report', 'sim', 'tui', 'alerts', 'threads'],
};

/** What of the collector the alerts module sees: its configuration and its stored-round hook. */
const ALERTS_SEE_OF_COLLECTOR = ['collector/config.ts', 'collector/config-error.ts', 'collector/stored-horizon.ts'];
/** Where the alerts module touches the store: its worker reads it. */
const ALERTS_STORE_FILES = ['alerts/alert-worker.ts'];

/** Every .ts/.tsx file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** The relative specifiers a file imports: `from '…'`, `import '…'` and `import('…')`. */
function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.[^'"]+)['"]/gm))
    out.push(m[1] as string);
  return out;
}

/** The top-level module of a path under src/ ('api', 'db', …), or undefined for src/ itself. */
function moduleOf(path: string): string | undefined {
  const rel = relative(SRC, path).split(/[\\/]/);
  return rel.length > 1 ? rel[0] : undefined;
}

interface Edge {
  readonly file: string;
  readonly from: string;
  readonly to: string;
  readonly target: string;
}

const edges: Edge[] = sources(SRC).flatMap((file) => {
  const from = moduleOf(file);
  if (from === undefined) return [];
  return specifiers(readFileSync(file, 'utf8')).flatMap((spec) => {
    const target = resolve(dirname(file), spec);
    const to = moduleOf(target);
    return to === undefined || to === from
      ? []
      : [{ file: relative(SRC, file), from, to, target: relative(SRC, target) }];
  });
});

describe('module boundaries (docs/architecture.md)', () => {
  it('finds the imports it checks', () => {
    expect(edges.length).toBeGreaterThan(50);
    // every module but src/api and src/threads imports another one
    expect(
      Object.keys(ALLOWED)
        .filter((m) => m !== 'api' && m !== 'threads')
        .sort(),
    ).toEqual([...new Set(edges.map((e) => e.from))].sort());
  });

  it('every import between modules is an allowed edge', () => {
    const bad = edges
      .filter((e) => !(ALLOWED[e.from] ?? []).includes(e.to))
      .map((e) => `${e.file} imports ${e.target}`);
    expect(bad).toEqual([]);
  });

  it('the collector sees only the store’s writer contract', () => {
    const bad = edges
      .filter((e) => e.from === 'collector' && e.to === 'db' && e.target !== 'db/poll-record.ts')
      .map((e) => `${e.file} imports ${e.target}`);
    expect(bad).toEqual([]);
  });

  it('the alerts module sees the collector’s configuration and hook only, and reads the store only in its worker', () => {
    const bad = edges
      .filter(
        (e) =>
          e.from === 'alerts' &&
          ((e.to === 'collector' && !ALERTS_SEE_OF_COLLECTOR.includes(e.target)) ||
            (e.to === 'db' && !ALERTS_STORE_FILES.includes(e.file))),
      )
      .map((e) => `${e.file} imports ${e.target}`);
    expect(bad).toEqual([]);
    // nothing but the command line imports the alerts
    expect(edges.filter((e) => e.to === 'alerts' && e.from !== 'cli').map((e) => e.file)).toEqual([]);
  });

  it('the store never imports the filter engine', () => {
    const bad = edges.filter((e) => e.from === 'db' && e.to === 'filter').map((e) => `${e.file} imports ${e.target}`);
    expect(bad).toEqual([]);
  });

  it('only the CLI loads the TUI, the simulator and the live alerts, and only lazily', () => {
    for (const file of sources(join(SRC, 'cli'))) {
      const text = readFileSync(file, 'utf8');
      const eager = [...text.matchAll(/^\s*import\s+(?!type\b)[^;]*?from\s+['"](\.[^'"]+)['"]/gm)]
        .map((m) => resolve(dirname(file), m[1] as string))
        .filter(
          (t) =>
            moduleOf(t) === 'tui' || moduleOf(t) === 'alerts' || (moduleOf(t) === 'sim' && !t.endsWith('sim/time.ts')),
        );
      expect(
        eager.map((t) => relative(SRC, t)),
        relative(SRC, file),
      ).toEqual([]);
    }
  });
});

/** The one module that imports an engine's implementation (src/db/engines/pg). */
const ENGINE_REGISTRY = 'db/engines/registry.ts';
/** What of the store the PostgreSQL engine imports: the engine contract and engine-neutral helpers. */
const PG_SEES_OF_DB = [
  'db/errors.ts',
  'db/encoding/bytes.ts',
  'db/sql-session.ts',
  'db/engines/store-engine.ts',
  'db/connections/chunk.ts',
  'db/schema/per-poll-tables.ts',
];

/** Every import between files of src/ (static, type-only, dynamic), by file path relative to src/. */
const fileEdges: { readonly file: string; readonly target: string }[] = sources(SRC).flatMap((file) =>
  specifiers(readFileSync(file, 'utf8')).map((spec) => ({
    file: relative(SRC, file),
    target: relative(SRC, resolve(dirname(file), spec)),
  })),
);
const inPg = (path: string): boolean => path.startsWith('db/engines/pg/');

describe('the engines of the store (src/db/engines/registry.ts)', () => {
  it('src/db/engines/pg is imported by the engine registry alone', () => {
    const bad = fileEdges
      .filter((e) => inPg(e.target) && !inPg(e.file) && e.file !== ENGINE_REGISTRY)
      .map((e) => `${e.file} imports ${e.target}`);
    expect(bad).toEqual([]);
    expect(fileEdges.some((e) => e.file === ENGINE_REGISTRY && inPg(e.target))).toBe(true);
  });

  it('src/db/engines/pg imports of the store only the engine contract and engine-neutral helpers', () => {
    const bad = fileEdges
      .filter((e) => inPg(e.file) && !inPg(e.target) && e.target.startsWith('db/') && !PG_SEES_OF_DB.includes(e.target))
      .map((e) => `${e.file} imports ${e.target}`);
    expect(bad).toEqual([]);
  });
});

/** Where the engines may be told apart: their implementations and the registry. */
const ENGINE_IMPLEMENTATIONS =
  /^db\/(engines\/(pg\/|registry\.ts$|sqlite\.ts$|store-engine\.ts$)|connections\/layouts\.ts$)/;
/** A test of which engine or layout the code runs on (issue 37 counted 42 such lines in 17 files). */
const ENGINE_BRANCH =
  /instanceof PgSyncDatabase|\bdialect\s*[!=]==\s*'(postgres|sqlite)'|\b(engine|kind|name)\s*[!=]==\s*'(postgres|pglite|sqlite)'|connectionLayout\s*[!=]==|#typed\b|#folded\b/;

describe('engine branches', () => {
  it('at most 5 lines outside the engine implementations test which engine or layout they run on', () => {
    const lines = sources(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => !ENGINE_IMPLEMENTATIONS.test(file))
      .flatMap((file) =>
        readFileSync(join(SRC, file), 'utf8')
          .split('\n')
          .flatMap((line, i) => (ENGINE_BRANCH.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(lines.length, lines.join('\n')).toBeLessThanOrEqual(5);
  });
});

/** The rows of docs/architecture.md's "Who imports whom" table: module to its cell. */
function documentedImports(): Map<string, string> {
  const doc = readFileSync(resolve(SRC, '../docs/architecture.md'), 'utf8');
  const table = doc.slice(doc.indexOf('### Who imports whom'));
  const rows = new Map<string, string>();
  for (const m of table.matchAll(/^\| `src\/([a-z/]+)`\s*\|(.*)\|\s*$/gm)) {
    if (!rows.has(m[1] as string)) rows.set(m[1] as string, m[2] as string);
  }
  return rows;
}

describe('docs/architecture.md, "Who imports whom"', () => {
  const rows = documentedImports();

  it('has a row for every module, naming each module the test allows it to import', () => {
    expect([...rows.keys()].filter((m) => m !== 'db/engines/pg').sort()).toEqual(Object.keys(ALLOWED).sort());
    for (const [module, allowed] of Object.entries(ALLOWED)) {
      const cell = rows.get(module) ?? '';
      const missing = allowed.filter((to) => !cell.includes(`\`src/${to}\``) && !cell.includes('everything'));
      expect(missing, `src/${module}`).toEqual([]);
    }
  });

  it('gives src/db/engines/pg its own row, naming the registry and each file of the store it may import', () => {
    const cell = rows.get('db/engines/pg') ?? '';
    expect(cell).toContain(`\`src/${ENGINE_REGISTRY}\``);
    expect(PG_SEES_OF_DB.filter((f) => !cell.includes(`\`${f.slice('db/'.length)}\``))).toEqual([]);
  });
});

/** What may change the store: the reader offers none of it (the writer writes, maintenance prunes and vacuums). */
const WRITING = ['prune', 'vacuum', 'planPrune', 'stats', 'write', 'writePoll', 'storePoll'] as const;

describe('roles of the store', () => {
  it('the reader’s type has no write or maintenance method (checked by tsc)', () => {
    expectTypeOf<HistoryReader>().not.toHaveProperty('prune');
    expectTypeOf<HistoryReader>().not.toHaveProperty('vacuum');
    expectTypeOf<HistoryReader>().not.toHaveProperty('planPrune');
    expectTypeOf<HistoryReader>().not.toHaveProperty('stats');
    expectTypeOf<HistoryReader>().not.toHaveProperty('write');
    expectTypeOf<HistoryReader>().not.toHaveProperty('writePoll');
    expectTypeOf<HistoryReader>().not.toHaveProperty('storePoll');
    expectTypeOf<HistoryMaintenance>().toHaveProperty('prune');
    expectTypeOf<HistoryMaintenance>().toHaveProperty('vacuum');
    expectTypeOf<HistoryMaintenance>().not.toHaveProperty('storePoll');
  });

  it('the reader object has no write or maintenance method; maintenance has its own', () => {
    const db = openDatabase(':memory:');
    try {
      const reader: object = createHistoryReader(db);
      expect(WRITING.filter((m) => m in reader)).toEqual([]);
      const maintenance = openHistoryMaintenance(db);
      expect(typeof maintenance.prune).toBe('function');
      expect(typeof maintenance.vacuum).toBe('function');
      expect(maintenance.stats().polls).toBe(0);
    } finally {
      db.close();
    }
  });
});
