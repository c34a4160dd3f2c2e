/**
 * Consecutive runs of one single-row `INSERT INTO t (...) VALUES ($1, ..., $n)` (the store inserts
 * connection entities and versions one row at a time) become one multi-row INSERT, up to the
 * protocol's 65,535 parameters: one round trip to PostgreSQL instead of hundreds. Anything else
 * (ON CONFLICT, RETURNING, SELECT, UPDATE...) runs as it is.
 */
import type { BatchItem } from './bridge-protocol.ts';

/** A statement to run and how many of the batch's statements it stands for. */
export interface MergedStatement {
  readonly sql: string;
  readonly params: unknown[];
  readonly rows: number;
  /** the statement as the store wrote it (for error messages) */
  readonly source: string;
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
      out.push({ sql: first.sql, params: [...first.params], rows: 1, source: first.sql });
      i++;
      continue;
    }
    const tuples: string[] = [];
    const params: unknown[] = [];
    for (let k = i; k < j; k++) {
      const base = params.length;
      tuples.push(`(${Array.from({ length: t.width }, (_, c) => `$${base + c + 1}`).join(', ')})`);
      params.push(...items[k]!.params);
    }
    out.push({ sql: `${t.head}${tuples.join(', ')}`, params, rows: j - i, source: first.sql });
    i = j;
  }
  return out;
}
