/**
 * Hand-written lexer for both dialects. The parser drives it: `next()`/`peek()` give structural
 * tokens (paths, operators, parentheses, keywords); right after an operator the parser calls
 * `value()`, which reads one literal (quoted string or unquoted text).
 */
import type { Comparator, Dialect, PathSegment, SyntaxLiteral } from './ast.ts';
import { FilterError, quote } from './errors.ts';
import { decodeUtf8, utf8Bytes } from './utf8.ts';

/** Kinds of structural tokens. */
export type TokenKind = 'word' | 'string' | 'op' | 'lparen' | 'rparen' | 'minus' | 'eof';

/** A structural token with its exact span. */
export interface Token {
  readonly kind: TokenKind;
  readonly start: number;
  readonly end: number;
  /** source text of the token */
  readonly text: string;
  /** whitespace came right before it */
  readonly spaceBefore: boolean;
  /** for `op` tokens */
  readonly op?: Comparator;
  /** for `word` tokens: the dot-separated segments */
  readonly segments?: readonly PathSegment[];
  /** for `string` tokens */
  readonly literal?: SyntaxLiteral;
}

const isWordChar = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;

/** Characters the server accepts in an unquoted literal: [A-Za-z0-9_.:-]. */
const isServerValueChar = (c: number): boolean => isWordChar(c) || c === 0x2e || c === 0x3a || c === 0x2d;

/** Extended unquoted text: anything but whitespace, controls, quotes, parentheses and operators. */
const EXTENDED_STOP = new Set([...`"'()=<>!,\\`].map((ch) => ch.charCodeAt(0)));
const isExtendedValueChar = (c: number): boolean =>
  c > 0x20 && c !== 0x7f && !EXTENDED_STOP.has(c) && (c < 0x80 || !/[\s\u0085]/.test(String.fromCharCode(c)));

const SERVER_ESCAPES: Record<string, number> = {
  '"': 0x22,
  '\\': 0x5c,
  '/': 0x2f,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
};
const EXTENDED_ESCAPES: Record<string, number> = { ...SERVER_ESCAPES, "'": 0x27, '*': 0x2a };

/** A display name for a character in messages ("a tab (U+0009)"). */
export function describeChar(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  const names: Record<number, string> = {
    9: 'a tab',
    10: 'a newline',
    13: 'a carriage return',
    0xa0: 'a no-break space',
  };
  const name = names[cp];
  if (name !== undefined) return `${name} (${hex})`;
  if (cp < 0x20 || cp === 0x7f) return `a control character (${hex})`;
  return `${quote(ch)}`;
}

/** Tokenizer over one input string. */
export class Lexer {
  #pos = 0;
  #buffered: Token | undefined;
  /** the text being tokenized */
  readonly input: string;
  /** which dialect's lexical rules apply */
  readonly dialect: Dialect;

  constructor(input: string, dialect: Dialect) {
    this.input = input;
    this.dialect = dialect;
  }

  /** Offset of the next unread character (after any buffered token). */
  get offset(): number {
    return this.#buffered?.start ?? this.#pos;
  }

  /** True when only whitespace remains. */
  atEnd(): boolean {
    return this.peek().kind === 'eof';
  }

  /** An error at a span of the input. */
  error(message: string, start: number, end: number = start + 1, suggestion?: string): FilterError {
    return new FilterError(message, this.input, start, end, suggestion);
  }

  /** The next structural token, without consuming it. */
  peek(): Token {
    this.#buffered ??= this.#scan();
    return this.#buffered;
  }

  /** Consumes and returns the next structural token. */
  next(): Token {
    const t = this.peek();
    this.#buffered = undefined;
    return t;
  }

  #isSpace(c: number): boolean {
    return c === 0x20 || (this.dialect === 'extended' && (c === 0x09 || c === 0x0a || c === 0x0d));
  }

  /** Skips whitespace; returns whether any was skipped. Server: a tab or newline is an error. */
  #skipSpace(): boolean {
    const start = this.#pos;
    while (this.#pos < this.input.length && this.#isSpace(this.input.charCodeAt(this.#pos))) this.#pos++;
    const c = this.input.charCodeAt(this.#pos);
    if (
      this.dialect === 'server' &&
      (c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c || c === 0xa0)
    ) {
      throw this.error(
        `${describeChar(this.input[this.#pos] as string)} is not allowed: the cluster accepts only the ASCII space as whitespace`,
        this.#pos,
        this.#pos + 1,
        'replace it with a space',
      );
    }
    return this.#pos > start;
  }

  #scan(): Token {
    const spaceBefore = this.#skipSpace();
    const { input } = this;
    const start = this.#pos;
    if (start >= input.length) return { kind: 'eof', start, end: start, text: '', spaceBefore };
    const c = input.charCodeAt(start);
    const tok = (kind: TokenKind, len: number, extra: Partial<Token> = {}): Token => {
      this.#pos = start + len;
      return { kind, start, end: start + len, text: input.slice(start, start + len), spaceBefore, ...extra };
    };
    if (isWordChar(c)) return this.#word(start, spaceBefore);
    const c1 = input[start + 1];
    switch (input[start]) {
      case '(':
        return tok('lparen', 1);
      case ')':
        return tok('rparen', 1);
      case '-':
        return tok('minus', 1);
      case ':':
        return tok('op', 1, { op: ':' });
      case '=':
        if (c1 === '=') throw this.error('"==" is not an operator', start, start + 2, 'use = for equality');
        if (c1 === '>' || c1 === '<') {
          throw this.error(`"=${c1}" is not an operator`, start, start + 2, `use ${c1}=`);
        }
        return tok('op', 1, { op: '=' });
      case '!':
        if (c1 === '=') return tok('op', 2, { op: '!=' });
        throw this.error('unexpected "!"', start, start + 1, this.dialect === 'extended' ? 'use != or NOT' : 'use !=');
      case '<':
        if (c1 === '=') return tok('op', 2, { op: '<=' });
        if (c1 === '>') throw this.error('"<>" is not an operator', start, start + 2, 'use != for "not equal"');
        return tok('op', 1, { op: '<' });
      case '>':
        if (c1 === '=') return tok('op', 2, { op: '>=' });
        return tok('op', 1, { op: '>' });
      case '"':
      case "'": {
        const literal = this.#quoted(start);
        return { kind: 'string', start, end: literal.end, text: input.slice(start, literal.end), spaceBefore, literal };
      }
      default:
        throw this.error(`unexpected ${describeChar(String.fromCodePoint(input.codePointAt(start) as number))}`, start);
    }
  }

  /** A word: `[A-Za-z0-9_]+` segments joined by dots (validated later as a path or keyword). */
  #word(start: number, spaceBefore: boolean): Token {
    const { input } = this;
    const segments: PathSegment[] = [];
    let segStart = start;
    let p = start;
    for (;;) {
      const c = input.charCodeAt(p);
      if (p < input.length && isWordChar(c)) {
        p++;
        continue;
      }
      segments.push({ text: input.slice(segStart, p), start: segStart, end: p });
      if (c === 0x2e && p < input.length) {
        p++;
        segStart = p;
        continue;
      }
      break;
    }
    this.#pos = p;
    return { kind: 'word', start, end: p, text: input.slice(start, p), spaceBefore, segments };
  }

  /** Reads the literal after an operator (call only right after consuming the operator). */
  value(after: Token): SyntaxLiteral {
    if (this.#buffered !== undefined) throw new Error('Lexer.value() called with a buffered token');
    this.#skipSpace();
    const { input } = this;
    const start = this.#pos;
    if (start >= input.length) {
      throw this.error(
        `expected a value after ${after.text}`,
        start,
        start,
        'for example node_id = 1 or client_id = "app"',
      );
    }
    const c = input.charCodeAt(start);
    let literal: SyntaxLiteral;
    if (c === 0x22 || (c === 0x27 && this.dialect === 'extended')) {
      literal = this.#quoted(start);
    } else {
      const accept = this.dialect === 'server' ? isServerValueChar : isExtendedValueChar;
      let p = start;
      while (p < input.length && accept(input.charCodeAt(p))) p++;
      if (p === start) throw this.#badValueChar(start, after, true);
      this.#pos = p;
      const raw = input.slice(start, p);
      literal = {
        quoted: false,
        raw,
        bytes: utf8Bytes(raw),
        text: raw,
        starAtStart: raw.startsWith('*'),
        starAtEnd: raw.endsWith('*'),
        start,
        end: p,
      };
    }
    const p = this.#pos;
    if (p < input.length) {
      const d = input.charCodeAt(p);
      if (!this.#isSpace(d) && !(d === 0x29 && this.dialect === 'extended')) {
        this.#skipSpace(); // reports a tab or newline in the server dialect
        if (literal.quoted) {
          throw this.error(
            `unexpected ${describeChar(input[p] as string)} after the string`,
            p,
            p + 1,
            'put a space between the value and what follows',
          );
        }
        throw this.#badValueChar(p, after, false);
      }
    }
    return literal;
  }

  #badValueChar(p: number, after: Token, first: boolean): FilterError {
    const ch = String.fromCodePoint(this.input.codePointAt(p) as number);
    const where = first
      ? `expected a value after ${after.text}, found ${describeChar(ch)}`
      : `unexpected ${describeChar(ch)} after the value`;
    if (this.dialect === 'server' && ch === '+') {
      return this.error(
        `${where}: "+" is not allowed in an unquoted literal (the cluster accepts only letters, digits and _ . : -)`,
        p,
        p + 1,
        'write timestamps in UTC with Z or with a -hh:mm offset; +hh:mm offsets need the extended dialect',
      );
    }
    if (this.dialect === 'server' && (ch === '(' || ch === ')')) {
      return this.error(
        `${where}: parentheses are not accepted by the cluster; use the extended dialect locally`,
        p,
        p + 1,
      );
    }
    if (this.dialect === 'server' && ch === "'") {
      return this.error(`${where}: single quotes are not accepted by the cluster`, p, p + 1, 'use double quotes');
    }
    if (this.dialect === 'server' && !first && !/[\s"]/.test(ch)) {
      return this.error(
        `${where}: unquoted literals may contain only letters, digits and _ . : -`,
        p,
        p + 1,
        'put a space between the value and the next word, or quote a string value',
      );
    }
    return this.error(where, p, p + 1, first ? undefined : 'put a space between the value and what follows');
  }

  /** A quoted string starting at `start` (the quote character); applies the dialect's escapes. */
  #quoted(start: number): SyntaxLiteral {
    const { input } = this;
    const q = input[start] as string;
    const escapes = this.dialect === 'server' ? SERVER_ESCAPES : EXTENDED_ESCAPES;
    const out: number[] = [];
    let run = start + 1;
    let p = start + 1;
    let starAtStart = false;
    let starAtEnd = false;
    const flush = (to: number): void => {
      if (to > run) for (const b of utf8Bytes(input.slice(run, to))) out.push(b);
    };
    for (;;) {
      if (p >= input.length) {
        throw this.error(
          'unterminated string: missing closing quote',
          start,
          input.length,
          `add ${q} at the end of the string`,
        );
      }
      const ch = input[p] as string;
      if (ch === q) break;
      if (ch === '\\') {
        flush(p);
        const e = input[p + 1];
        if (e === 'x') {
          const hex = input.slice(p + 2, p + 4);
          if (!/^[0-9A-Fa-f]{2}$/.test(hex)) {
            throw this.error(
              'invalid escape: \\x must be followed by exactly two hex digits',
              p,
              Math.min(p + 4, input.length),
              'for example "\\xC3\\xA9" for é',
            );
          }
          out.push(parseInt(hex, 16));
          p += 4;
        } else if (e !== undefined && escapes[e] !== undefined) {
          out.push(escapes[e]);
          p += 2;
        } else {
          const allowed =
            this.dialect === 'server'
              ? '\\" \\\\ \\/ \\b \\f \\n \\r \\t \\xNN'
              : '\\" \\\' \\\\ \\/ \\* \\b \\f \\n \\r \\t \\xNN';
          throw this.error(
            `invalid escape ${e === undefined ? '\\' : `\\${e}`} in string`,
            p,
            Math.min(p + 2, input.length),
            `allowed escapes: ${allowed}`,
          );
        }
        starAtEnd = false;
        run = p;
        continue;
      }
      if (ch === '*') {
        if (p === start + 1) starAtStart = true;
        starAtEnd = true;
      } else {
        starAtEnd = false;
      }
      p++;
    }
    flush(p);
    this.#pos = p + 1;
    const bytes = Uint8Array.from(out);
    return {
      quoted: true,
      raw: input.slice(start + 1, p),
      bytes,
      text: decodeUtf8(bytes),
      starAtStart,
      starAtEnd,
      start,
      end: p + 1,
    };
  }
}
