/**
 * The filter and ordering engine: the cluster's AIP-160 dialect (`server`), full AIP-160 for
 * local history (`extended`), and AIP-132 order_by, over every resource schema. Parse, check
 * and compile once; then `matches(row)` and `compare(a, b)` run on decoded rows.
 */
import type { CheckedNode, Dialect } from './ast.ts';
import { checkTree } from './checker.ts';
import { FilterError, type FilterWarning } from './errors.ts';
import { compileNode } from './evaluator.ts';
import { compileOrder, parseOrderBy, printOrderBy, type OrderKey } from './order-by.ts';
import { parseFilter } from './parser.ts';
import { printFilter } from './printer.ts';

export type { Dialect, CheckedNode, Comparator, Literal, ResolvedPath, SyntaxNode, Test } from './ast.ts';
export { FilterError, type FilterWarning } from './errors.ts';
export { listFieldPaths, type FieldPathInfo, type ResourceRef } from './field-paths.ts';
import type { ResourceRef } from './field-paths.ts';
export { toSqlPrefilter, type SqlColumn, type SqlColumnMap, type SqlPrefilter } from './sql.ts';
export { parseFilter, MAX_DEPTH, SERVER_MAX_LENGTH } from './parser.ts';
export type { OrderKey } from './order-by.ts';

/** Options of compileFilter and checkFilter. */
export interface FilterOptions {
  /** a resource name (`connections`), or a ResourceSpec of its own */
  resource: ResourceRef;
  dialect: Dialect;
}

/** A checked, compiled filter. */
export interface CompiledFilter {
  /** canonical text; re-parses to the same tree ('' for the empty filter) */
  readonly normalized: string;
  /** the checked tree; undefined for the empty filter */
  readonly ast: CheckedNode | undefined;
  readonly resource: ResourceRef;
  readonly dialect: Dialect;
  /** valid but suspicious parts, e.g. enum names that match nothing */
  readonly warnings: readonly FilterWarning[];
  /** true when the decoded row matches ('' matches everything) */
  matches(row: object): boolean;
}

/** Parses, checks and compiles a filter; throws FilterError. */
export function compileFilter(expr: string, opts: FilterOptions): CompiledFilter {
  const syntax = parseFilter(expr, opts.dialect);
  const { ast, warnings } =
    syntax === undefined ? { ast: undefined, warnings: [] } : checkTree(syntax, { ...opts, input: expr });
  const matches = compileNode(ast);
  return {
    normalized: printFilter(ast, opts.dialect),
    ast,
    resource: opts.resource,
    dialect: opts.dialect,
    warnings,
    matches,
  };
}

/** Checks a filter without throwing: the normalised form (and warnings), or the error. */
export function checkFilter(
  expr: string,
  opts: FilterOptions,
): { ok: true; normalized: string; warnings: readonly FilterWarning[] } | { ok: false; error: FilterError } {
  try {
    const syntax = parseFilter(expr, opts.dialect);
    const { ast, warnings } =
      syntax === undefined ? { ast: undefined, warnings: [] } : checkTree(syntax, { ...opts, input: expr });
    return { ok: true, normalized: printFilter(ast, opts.dialect), warnings };
  } catch (err) {
    if (err instanceof FilterError) return { ok: false, error: err };
    throw err;
  }
}

/** A checked, compiled order_by. */
export interface CompiledOrder {
  /** canonical text (`node_id desc, client_id`); '' when there is no ordering */
  readonly normalized: string;
  readonly keys: readonly OrderKey[];
  /** Array.prototype.sort comparator; includes the key tie-break unless tieBreak is false */
  compare(a: object, b: object): number;
}

/** Parses, checks and compiles an order_by; throws FilterError. */
export function compileOrderBy(expr: string, opts: FilterOptions & { tieBreak?: boolean }): CompiledOrder {
  const keys = parseOrderBy(expr, opts.resource, opts.dialect);
  return { normalized: printOrderBy(keys), keys, compare: compileOrder(keys, opts.resource, opts.tieBreak !== false) };
}
