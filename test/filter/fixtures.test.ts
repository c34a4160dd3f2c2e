/**
 * Data-driven filter and order_by cases (test/fixtures/filter/cases/*.yaml), run against the
 * decoded records of test/fixtures/filter/records/. Every accepted filter is also checked for
 * a stable normalised form and for the SQL pre-filter (superset, and exact after the closure)
 * on SQLite mirrors of the records.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  checkFilter,
  compileFilter,
  compileOrderBy,
  FilterError,
  toSqlPrefilter,
  type Dialect,
} from '../../src/filter/index.ts';
import { buildMirror, FIXTURES, loadRecords, resourceRef, type Mirror, type MirrorOptions } from './support.ts';

interface Case {
  filter?: string;
  order_by?: string;
  dialect?: Dialect | 'both';
  resource?: string;
  pad_to?: number;
  normalized?: string;
  matches?: string[];
  warning?: string;
  order?: string[];
  tie_break?: boolean;
  error?: string;
  at?: [number, number];
  hint?: string;
}

interface CaseFile {
  resource?: string;
  dialect?: Dialect | 'both';
  cases: Case[];
}

const MIRROR_MODES: MirrorOptions[] = [
  { enums: 'name', nullDefaults: false, int64AsText: false },
  { enums: 'number', nullDefaults: true, int64AsText: false },
  { enums: 'name', nullDefaults: true, int64AsText: true },
];
const mirrors = new Map<string, Mirror>();
function mirror(resource: string, mode: number): Mirror {
  const key = `${resource}#${mode}`;
  let m = mirrors.get(key);
  if (m === undefined) {
    m = buildMirror(
      resourceRef(resource),
      loadRecords(resource).map((r) => r.row),
      MIRROR_MODES[mode] as MirrorOptions,
    );
    mirrors.set(key, m);
  }
  return m;
}
afterAll(() => {
  for (const m of mirrors.values()) m.close();
});

const files = readdirSync(`${FIXTURES}cases`)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
let total = 0;

for (const file of files) {
  const doc = parse(readFileSync(`${FIXTURES}cases/${file}`, 'utf8')) as CaseFile;
  describe(file, () => {
    doc.cases.forEach((c, i) => {
      const resource = c.resource ?? doc.resource ?? 'connections';
      const d = c.dialect ?? doc.dialect ?? 'extended';
      const dialects: Dialect[] = d === 'both' ? ['server', 'extended'] : [d];
      total += 1;
      for (const dialect of dialects) {
        const title = `#${i + 1} [${dialect} ${resource}] ${c.filter ?? `order_by ${JSON.stringify(c.order_by)}`}`;
        it(title, () => (c.order_by !== undefined ? runOrder(c, resource, dialect) : runFilter(c, resource, dialect)));
      }
    });
  });
}

describe('fixture inventory', () => {
  it('has at least 200 cases (a case run in both dialects counts once)', () => {
    expect(total).toBeGreaterThanOrEqual(200);
  });
});

function expectError(err: FilterError, c: Case): void {
  expect(err).toBeInstanceOf(FilterError);
  expect(err.message).toContain(c.error);
  if (c.at !== undefined) expect([err.start, err.end]).toEqual(c.at);
  if (c.hint !== undefined) expect(err.suggestion ?? '').toContain(c.hint);
  const rendered = err.render();
  expect(rendered).toContain('^');
  expect(rendered.split('\n').length).toBeGreaterThanOrEqual(3);
}

function runFilter(c: Case, resourceName: string, dialect: Dialect): void {
  const resource = resourceRef(resourceName);
  const input = c.pad_to === undefined ? (c.filter as string) : (c.filter as string).padEnd(c.pad_to, ' ');
  const checked = checkFilter(input, { resource, dialect });
  if (c.error !== undefined) {
    if (checked.ok)
      throw new Error(
        `expected an error containing ${JSON.stringify(c.error)}, got ${JSON.stringify(checked.normalized)}`,
      );
    expectError(checked.error, c);
    expect(() => compileFilter(input, { resource, dialect })).toThrow(FilterError);
    return;
  }
  if (!checked.ok) throw new Error(`unexpected error:\n${checked.error.render()}`);
  const compiled = compileFilter(input, { resource, dialect });
  expect(compiled.normalized).toBe(c.normalized ?? c.filter);
  if (c.warning === undefined) expect(compiled.warnings).toEqual([]);
  else expect(compiled.warnings.map((w) => w.message).join('\n')).toContain(c.warning);
  if (c.matches === undefined) throw new Error('a filter case needs `matches` (or `error`)');
  const records = loadRecords(resourceName);
  const matched = records.filter((r) => compiled.matches(r.row)).map((r) => r.id);
  expect([...matched].sort()).toEqual([...c.matches].sort());

  // The normalised form is a fixed point and selects the same rows.
  const again = compileFilter(compiled.normalized, { resource, dialect });
  expect(again.normalized).toBe(compiled.normalized);
  expect(records.filter((r) => again.matches(r.row)).map((r) => r.id)).toEqual(matched);

  // The SQL pre-filter selects a superset; with the closure it selects exactly the matches.
  MIRROR_MODES.forEach((_, mode) => {
    const m = mirror(resourceName, mode);
    const { where, params } = toSqlPrefilter(compiled, m.columns);
    const selected = m.select(where, params);
    records.forEach((r, idx) => {
      if (compiled.matches(r.row)) expect(selected.has(idx), `row ${r.id} missing from SQL (${where})`).toBe(true);
    });
  });
}

function runOrder(c: Case, resourceName: string, dialect: Dialect): void {
  const resource = resourceRef(resourceName);
  const input = c.order_by as string;
  const opts = { resource, dialect, tieBreak: c.tie_break !== false };
  if (c.error !== undefined) {
    let err: unknown;
    try {
      compileOrderBy(input, opts);
    } catch (e) {
      err = e;
    }
    if (err === undefined) throw new Error(`expected an order_by error containing ${JSON.stringify(c.error)}`);
    expectError(err as FilterError, c);
    return;
  }
  const order = compileOrderBy(input, opts);
  expect(order.normalized).toBe(c.normalized ?? input);
  const sorted = [...loadRecords(resourceName)].sort((a, b) => order.compare(a.row, b.row)).map((r) => r.id);
  expect(sorted).toEqual(c.order);
  expect(compileOrderBy(order.normalized, opts).normalized).toBe(order.normalized);
}
