/**
 * Consecutive runs of one single-row `INSERT INTO t (...) VALUES ($1, ..., $n)` (the store inserts
 * connection entities and versions one row at a time) become one multi-row INSERT, up to the
 * protocol's 65,535 parameters: one round trip to PostgreSQL instead of hundreds. Then
 * consecutive plain INSERTs into different tables (a poll row and its sample rows) become one
 * statement of data-modifying CTEs: one round trip instead of one each. Anything else (ON
 * CONFLICT, RETURNING, SELECT, UPDATE...) runs as it is, in its place.
 */
import type { BatchItem } from './bridge-protocol.ts';

/** A statement to run and how many of the batch's statements it stands for. */
export interface MergedStatement {
  readonly sql: string;
  readonly params: unknown[];
  readonly rows: number;
  /** the statement as the store wrote it (for error messages) */
  readonly source: string;
  /** a plain INSERT: its text up to VALUES, and its tuples' width (it may join a combined statement) */
  readonly plain?: { readonly head: string; readonly width: number };
}

/** Statements run as one, and what each stood for. */
export interface CombinedStatement {
  readonly sql: string;
  readonly params: unknown[];
  /** the merged statements it runs, in order; more than one: the result's row holds each one's count */
  readonly parts: readonly MergedStatement[];
}

/** Plain INSERTs combined into one statement at most. */
const MAX_PARTS = 32;

/** Whether a statement may join a combined one: a plain INSERT given exactly its parameters. */
function combinable(s: MergedStatement): boolean {
  return s.plain !== undefined && s.params.length === s.rows * s.plain.width;
}

const SINGLE_ROW = /^\s*INSERT\s+INTO\s+[A-Za-z_]\w*\s*\([^()]*\)\s*VALUES\s*(\((?:\s*\$\d+\s*,)*\s*\$\d+\s*\))\s*$/i;
const MAX_PARAMS = 65_535;

/** The tuple of `$1..$n` of a plain single-row INSERT, if it is one (placeholders in order). */
function tupleOf(sql: string): { head: string; width: number } | undefined {
  const m = SINGLE_ROW.exec(sql);
  if (m === null) return undefined;
  const numbers = [...m[1]!.matchAll(/\$(\d+)/g)].map((x) => Number(x[1]));
  if (!numbers.every((n, i) => n === i + 1)) return undefined;
  return { head: sql.slice(0, m.index + m[0].length - m[1]!.length), width: numbers.length };
}

/** The batch as statements to run, merged where it is safe. */
export function mergeInserts(items: readonly BatchItem[]): MergedStatement[] {
  const out: MergedStatement[] = [];
  let i = 0;
  while (i < items.length) {
    const first = items[i]!;
    const t = tupleOf(first.sql);
    let j = i + 1;
    if (t !== undefined) {
      const most = Math.max(1, Math.floor(MAX_PARAMS / t.width));
      while (j < items.length && j - i < most && items[j]!.sql === first.sql) j++;
    }
    if (j - i === 1 || t === undefined) {
      out.push({
        sql: first.sql,
        params: [...first.params],
        rows: 1,
        source: first.sql,
        ...(t === undefined ? {} : { plain: t }),
      });
      i++;
      continue;
    }
    const params: unknown[] = [];
    for (let k = i; k < j; k++) params.push(...items[k]!.params);
    out.push({ sql: `${t.head}${tuples(j - i, t.width, 0)}`, params, rows: j - i, source: first.sql, plain: t });
    i = j;
  }
  return out;
}

/** The VALUES tuples of `rows` rows of `width` placeholders, numbered from `base + 1`. */
function tuples(rows: number, width: number, base: number): string {
  const out: string[] = [];
  for (let r = 0; r < rows; r++) {
    out.push(`(${Array.from({ length: width }, (_, c) => `$${base + r * width + c + 1}`).join(', ')})`);
  }
  return out.join(', ');
}

/**
 * Consecutive plain INSERTs as one statement of data-modifying CTEs (`WITH s0 AS (INSERT ...
 * RETURNING 1), ... SELECT count(*) of each`). PostgreSQL runs every one, checks foreign keys
 * at the statement's end (a sample row may name the poll row inserted beside it) and unique
 * keys as each row goes in, so the outcome is the statements' own; INSERTs read no rows, so the
 * CTEs' shared snapshot changes nothing.
 */
export function combineInserts(statements: readonly MergedStatement[]): CombinedStatement[] {
  const out: CombinedStatement[] = [];
  let i = 0;
  while (i < statements.length) {
    const first = statements[i]!;
    let j = i + 1;
    let params = first.params.length;
    if (combinable(first)) {
      while (j < statements.length && j - i < MAX_PARTS) {
        const next = statements[j]!;
        if (!combinable(next) || params + next.params.length > MAX_PARAMS) break;
        params += next.params.length;
        j++;
      }
    }
    if (j - i === 1) {
      out.push({ sql: first.sql, params: first.params, parts: [first] });
      i++;
      continue;
    }
    const parts = statements.slice(i, j);
    const ctes: string[] = [];
    const all: unknown[] = [];
    parts.forEach((p, k) => {
      const { head, width } = p.plain!;
      ctes.push(`s${k} AS (${head}${tuples(p.rows, width, all.length)} RETURNING 1)`);
      all.push(...p.params);
    });
    const counts = parts.map((_, k) => `(SELECT count(*) FROM s${k})`).join(', ');
    out.push({ sql: `WITH ${ctes.join(', ')} SELECT ${counts}`, params: all, parts });
    i = j;
  }
  return out;
}
