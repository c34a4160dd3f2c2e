/**
 * Recursive-descent parser for both dialects over one grammar (AIP-160):
 *
 *   filter      = [expression]
 *   expression  = sequence { WS "AND" WS sequence }        explicit AND
 *   sequence    = factor { WS factor }                      implicit AND (extended)
 *   factor      = term { WS "OR" WS term }                  OR binds tightest (extended)
 *   term        = [ "NOT" WS | "-" ] simple                 (extended)
 *   simple      = restriction | "(" expression ")"          (extended)
 *   restriction = path comparator value
 *
 * The server dialect is `restriction { " AND " restriction }`; every other construct is
 * parsed far enough to explain why the cluster rejects it. Chains are loops (n-ary nodes),
 * so only parentheses and NOT recurse, bounded by MAX_DEPTH.
 */
import type { Dialect, SyntaxAnd, SyntaxNode, SyntaxOr, SyntaxPath, SyntaxRestriction } from './ast.ts';
import { FilterError } from './errors.ts';
import { Lexer, type Token } from './lexer.ts';

/** Deepest nesting of parentheses and NOT accepted. */
export const MAX_DEPTH = 100;
/** Longest filter the cluster accepts, in characters (code points). */
export const SERVER_MAX_LENGTH = 1024;
/** Longest filter accepted locally, in UTF-16 code units. */
export const EXTENDED_MAX_LENGTH = 1_000_000;

const EXTENDED_ONLY = 'not accepted by the cluster; use the extended dialect locally';

/** Parses a filter; undefined for the empty (or all-whitespace) filter. Throws FilterError. */
export function parseFilter(input: string, dialect: Dialect): SyntaxNode | undefined {
  checkLength(input, dialect);
  return new Parser(input, dialect).parse();
}

function checkLength(input: string, dialect: Dialect): void {
  if (dialect === 'server') {
    let n = 0;
    let cut = input.length;
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i);
      if (c >= 0xdc00 && c <= 0xdfff && i > 0 && input.charCodeAt(i - 1) >= 0xd800 && input.charCodeAt(i - 1) <= 0xdbff)
        continue;
      n++;
      if (n === SERVER_MAX_LENGTH + 1) cut = i;
    }
    if (n > SERVER_MAX_LENGTH) {
      throw new FilterError(
        `filter too long: ${n} characters, the cluster accepts at most ${SERVER_MAX_LENGTH}`,
        input,
        cut,
        input.length,
        'split the query or use the extended dialect locally',
      );
    }
  } else if (input.length > EXTENDED_MAX_LENGTH) {
    throw new FilterError(
      `filter too long: at most ${EXTENDED_MAX_LENGTH} characters`,
      input,
      EXTENDED_MAX_LENGTH,
      input.length,
    );
  }
}

const isKeyword = (t: Token, word: string): boolean => t.kind === 'word' && t.text === word;

class Parser {
  readonly #lx: Lexer;
  readonly #server: boolean;
  readonly #input: string;

  constructor(input: string, dialect: Dialect) {
    this.#input = input;
    this.#lx = new Lexer(input, dialect);
    this.#server = dialect === 'server';
  }

  #error(message: string, start: number, end?: number, suggestion?: string): FilterError {
    return new FilterError(message, this.#input, start, end, suggestion);
  }

  parse(): SyntaxNode | undefined {
    if (this.#lx.atEnd()) return undefined;
    const node = this.#expression(0);
    const t = this.#lx.peek();
    if (t.kind !== 'eof') {
      if (t.kind === 'rparen') throw this.#error('unbalanced ")": no matching "("', t.start, t.end);
      throw this.#unexpectedAfterRestriction(t);
    }
    return node;
  }

  /** expression = sequence { AND sequence } */
  #expression(depth: number): SyntaxNode {
    const first = this.#sequence(depth);
    const children: SyntaxNode[] = [first];
    for (;;) {
      const t = this.#lx.peek();
      if (!isKeyword(t, 'AND')) break;
      if (!t.spaceBefore) throw this.#error('expected a space before AND', t.start, t.end);
      this.#lx.next();
      const after = this.#lx.peek();
      if (after.kind === 'eof') throw this.#error('expected a comparison after AND', t.start, t.end);
      if (!after.spaceBefore && !(after.kind === 'lparen' && !this.#server)) {
        throw this.#error('expected a space after AND', after.start, after.end);
      }
      children.push(this.#sequence(depth));
    }
    return merge('and', children, false);
  }

  /** sequence = factor { WS factor } (implicit AND; the server requires explicit AND) */
  #sequence(depth: number): SyntaxNode {
    const children: SyntaxNode[] = [this.#factor(depth)];
    for (;;) {
      const t = this.#lx.peek();
      if (t.kind === 'eof' || t.kind === 'rparen' || isKeyword(t, 'AND')) break;
      if (this.#server) throw this.#unexpectedAfterRestriction(t);
      if (!t.spaceBefore) throw this.#unexpectedAfterRestriction(t);
      children.push(this.#factor(depth));
    }
    return merge('and', children, true);
  }

  /** factor = term { OR term } */
  #factor(depth: number): SyntaxNode {
    const children: SyntaxNode[] = [this.#term(depth)];
    for (;;) {
      const t = this.#lx.peek();
      if (!isKeyword(t, 'OR')) break;
      if (this.#server)
        throw this.#error(
          `OR is ${EXTENDED_ONLY}`,
          t.start,
          t.end,
          'run one query per alternative, or use --dialect extended',
        );
      if (!t.spaceBefore) throw this.#error('expected a space before OR', t.start, t.end);
      this.#lx.next();
      const after = this.#lx.peek();
      if (after.kind === 'eof') throw this.#error('expected a comparison after OR', t.start, t.end);
      if (!after.spaceBefore && after.kind !== 'lparen')
        throw this.#error('expected a space after OR', after.start, after.end);
      children.push(this.#term(depth));
    }
    return merge('or', children, false);
  }

  /** term = [NOT | -] simple */
  #term(depth: number): SyntaxNode {
    const t = this.#lx.peek();
    if (isKeyword(t, 'NOT') || t.kind === 'minus') {
      const what = t.kind === 'minus' ? 'negation with "-"' : 'NOT';
      if (this.#server)
        throw this.#error(
          `${what} is ${EXTENDED_ONLY}`,
          t.start,
          t.end,
          'write the opposite comparison, e.g. != instead of NOT =',
        );
      this.#lx.next();
      const after = this.#lx.peek();
      if (after.kind === 'eof') throw this.#error(`expected a comparison after ${t.text}`, t.start, t.end);
      if (t.kind === 'minus' && after.spaceBefore)
        throw this.#error(
          '"-" must be followed directly by a comparison',
          t.start,
          after.start + 1,
          'write -field = value or NOT field = value',
        );
      if (t.kind === 'word' && !after.spaceBefore && after.kind !== 'lparen')
        throw this.#error('expected a space after NOT', after.start, after.end);
      if (isKeyword(after, 'NOT') || after.kind === 'minus') {
        throw this.#error(
          'a negation cannot directly follow a negation',
          after.start,
          after.end,
          'use parentheses: NOT (NOT a = 1)',
        );
      }
      if (depth + 1 > MAX_DEPTH)
        throw this.#error(`filter nested too deeply (more than ${MAX_DEPTH} levels)`, t.start, t.end);
      const child = this.#simple(depth + 1);
      return { kind: 'not', child, start: t.start, end: child.end };
    }
    return this.#simple(depth);
  }

  /** simple = restriction | ( expression ) */
  #simple(depth: number): SyntaxNode {
    const t = this.#lx.peek();
    if (t.kind === 'lparen') {
      if (this.#server) throw this.#error(`parentheses are ${EXTENDED_ONLY}`, t.start, t.end);
      if (depth + 1 > MAX_DEPTH)
        throw this.#error(`filter nested too deeply (more than ${MAX_DEPTH} levels)`, t.start, t.end);
      this.#lx.next();
      if (this.#lx.peek().kind === 'rparen') throw this.#error('empty parentheses', t.start, this.#lx.peek().end);
      const inner = this.#expression(depth + 1);
      const close = this.#lx.next();
      if (close.kind !== 'rparen') {
        if (close.kind === 'eof') throw this.#error('missing ")"', t.start, t.end, 'close the parenthesis opened here');
        throw this.#unexpectedAfterRestriction(close);
      }
      return { ...inner, start: t.start, end: close.end };
    }
    return this.#restriction();
  }

  #restriction(): SyntaxRestriction {
    const t = this.#lx.next();
    if (t.kind === 'eof') throw this.#error('expected a comparison', t.start, t.start);
    if (t.kind === 'string') {
      const op = this.#lx.peek();
      if (op.kind === 'op')
        throw this.#error('the field must be on the left of the operator', t.start, t.end, 'write field = value');
      throw this.#bareValue(t);
    }
    if (t.kind !== 'word') {
      if (t.kind === 'rparen') throw this.#error('unexpected ")"', t.start, t.end);
      if (t.kind === 'op') throw this.#error(`expected a field name before ${t.text}`, t.start, t.end);
      throw this.#error(`unexpected ${t.text}`, t.start, t.end);
    }
    if (t.text === 'AND' || t.text === 'OR')
      throw this.#error(`expected a comparison before ${t.text}`, t.start, t.end);
    const path = this.#path(t);
    const op = this.#lx.peek();
    if (op.kind === 'lparen' && !op.spaceBefore) {
      throw this.#error('functions are not supported', t.start, op.end, 'compare a field with = != < <= > >= or :');
    }
    if (op.kind !== 'op') throw this.#bareValue(t);
    if (op.op === ':' && this.#server) {
      throw this.#error(`the ":" (has) operator is ${EXTENDED_ONLY}`, op.start, op.end, 'use = to compare');
    }
    this.#lx.next();
    const value = this.#lx.value(op);
    return {
      kind: 'restriction',
      path,
      op: op.op as SyntaxRestriction['op'],
      opSpan: { start: op.start, end: op.end },
      value,
      start: t.start,
      end: value.end,
    };
  }

  /** Validates a word as a dotted field path. */
  #path(t: Token): SyntaxPath {
    const segments = t.segments ?? [];
    for (const [i, s] of segments.entries()) {
      if (s.text === '') {
        throw this.#error(
          i === segments.length - 1 ? 'field path ends with "."' : 'empty segment in field path',
          Math.max(s.start - 1, t.start),
          s.start + 1,
        );
      }
      const first = s.text.charCodeAt(0);
      const letter = (first >= 0x41 && first <= 0x5a) || (first >= 0x61 && first <= 0x7a);
      // A later segment may be a map key such as `api_versions.3` (the checker rejects maps
      // in the server dialect with a better message than "must start with a letter").
      if (!letter && i === 0) {
        if (i === 0 && segments.length === 1 && /^[0-9]/.test(s.text)) {
          throw this.#error(
            `a field name must start with a letter, found ${JSON.stringify(s.text)}`,
            s.start,
            s.end,
            'the field is always on the left: field = value',
          );
        }
        throw this.#error(`field path segment ${JSON.stringify(s.text)} must start with a letter`, s.start, s.end);
      }
    }
    return { segments, start: t.start, end: t.end };
  }

  #bareValue(t: Token): FilterError {
    const lower = t.text.toLowerCase();
    if (lower === 'and' || lower === 'or' || lower === 'not') {
      const kw = t.text.toUpperCase();
      if (this.#server && kw !== 'AND') return this.#error(`${kw} is ${EXTENDED_ONLY}`, t.start, t.end);
      return this.#error(`unexpected ${JSON.stringify(t.text)}: keywords are uppercase`, t.start, t.end, `write ${kw}`);
    }
    const op = this.#lx.peek();
    if (this.#server) {
      return this.#error(
        `expected an operator (= != < <= > >=) after ${JSON.stringify(t.text)}`,
        op.start,
        Math.max(op.end, op.start + 1),
      );
    }
    return this.#error(
      `bare value ${JSON.stringify(t.text)} is not supported: compare a field with = != < <= > >= or :`,
      t.start,
      t.end,
      'write field = value',
    );
  }

  /** An error for a token where AND (server) or the end of a group was expected. */
  #unexpectedAfterRestriction(t: Token): FilterError {
    if (t.kind === 'word' && t.text.toLowerCase() === 'and' && t.text !== 'AND') {
      return this.#error(`unexpected ${JSON.stringify(t.text)}: AND must be uppercase`, t.start, t.end, 'write AND');
    }
    if (t.kind === 'word' && t.text.toLowerCase() === 'or' && this.#server) {
      return this.#error(`OR is ${EXTENDED_ONLY}`, t.start, t.end);
    }
    if (t.kind === 'rparen') {
      return this.#error(this.#server ? `parentheses are ${EXTENDED_ONLY}` : 'unbalanced ")"', t.start, t.end);
    }
    if (!t.spaceBefore) return this.#error(`expected a space before ${JSON.stringify(t.text)}`, t.start, t.end);
    if (this.#server) {
      return this.#error(
        `expected AND or the end of the filter, found ${JSON.stringify(t.text)}`,
        t.start,
        t.end,
        'the cluster needs an explicit AND between comparisons',
      );
    }
    return this.#error(`unexpected ${JSON.stringify(t.text)}`, t.start, t.end);
  }
}

/** Builds an n-ary node, flattening children of the same kind; one child is returned as is. */
function merge(kind: 'and' | 'or', children: SyntaxNode[], implicit: boolean): SyntaxNode {
  if (children.length === 1) return children[0] as SyntaxNode;
  const flat: SyntaxNode[] = [];
  for (const c of children) {
    if (c.kind === kind && (kind === 'or' || (c as SyntaxAnd).implicit === implicit)) {
      for (const g of c.children) flat.push(g);
    } else {
      flat.push(c);
    }
  }
  const start = (children[0] as SyntaxNode).start;
  const end = (children[children.length - 1] as SyntaxNode).end;
  return kind === 'or'
    ? ({ kind, children: flat, start, end } satisfies SyntaxOr)
    : ({ kind, implicit, children: flat, start, end } satisfies SyntaxAnd);
}
