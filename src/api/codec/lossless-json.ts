/** A parsed JSON value; integers beyond ±(2^53-1) are kept exactly as bigint. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };

type JsonObject = { [key: string]: JsonValue };

/** Deepest nesting of arrays and objects accepted by the exact (bigint) tokenizer. */
export const MAX_JSON_DEPTH = 512;

/** Malformed JSON, with the position (UTF-16 offset, 1-based line and column) of the fault. */
export class JsonSyntaxError extends Error {
  /** What is wrong, without the position. */
  readonly detail: string;
  /** 0-based offset of the fault, in UTF-16 code units of the (decoded) text. */
  readonly offset: number;
  /** 1-based line of the fault. */
  readonly line: number;
  /** 1-based column of the fault, in UTF-16 code units. */
  readonly column: number;

  constructor(detail: string, offset: number, line: number, column: number) {
    super(`invalid JSON at line ${line}, column ${column}: ${detail}`);
    this.name = 'JsonSyntaxError';
    this.detail = detail;
    this.offset = offset;
    this.line = line;
    this.column = column;
  }
}

function syntaxError(text: string, offset: number, detail: string): JsonSyntaxError {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return new JsonSyntaxError(detail, offset, line, offset - lineStart + 1);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Sixteen digits, unrolled: irregexp scans this far faster than `\d{16}`. */
const SIXTEEN_DIGITS = /\d\d\d\d\d\d\d\d\d\d\d\d\d\d\d\d/g;

/**
 * Cheap pre-scan deciding whether JSON.parse alone is lossless: true when a run of 16+ digits
 * starts where a bare number can (after `:`, `,`, `[` or the start, with optional whitespace
 * and '-'). Runs inside strings usually follow '"' and are skipped; a false positive only costs
 * the slower exact path. 15 digits are always below 2^53, so shorter runs are never a risk.
 */
export function needsSlowPath(s: string): boolean {
  SIXTEEN_DIGITS.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = SIXTEEN_DIGITS.exec(s)) !== null) {
    let i = m.index - 1;
    let c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) continue; // inside a longer run already judged at its start
    if (c === 0x2d) c = s.charCodeAt(--i);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(--i);
    if (c === 0x3a || c === 0x2c || c === 0x5b || Number.isNaN(c)) return true;
  }
  return false;
}

function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** Iterative recursive-descent parser producing bigint for unsafe integer literals. */
class LosslessParser {
  private pos = 0;
  private readonly s: string;

  constructor(text: string) {
    this.s = text;
  }

  parse(): JsonValue {
    const s = this.s;
    const containers: Array<JsonValue[] | JsonObject> = [];
    const keys: string[] = [];
    let value: JsonValue;
    for (;;) {
      this.skipWs();
      const c = s.charCodeAt(this.pos);
      if (c === 0x7b || c === 0x5b) {
        if (containers.length >= MAX_JSON_DEPTH) this.fail(this.pos, `nesting deeper than ${MAX_JSON_DEPTH} levels`);
        this.pos++;
        this.skipWs();
        if (c === 0x7b) {
          if (s.charCodeAt(this.pos) === 0x7d) {
            this.pos++;
            value = {};
          } else {
            containers.push({});
            keys.push(this.parseKey());
            continue;
          }
        } else if (s.charCodeAt(this.pos) === 0x5d) {
          this.pos++;
          value = [];
        } else {
          containers.push([]);
          keys.push('');
          continue;
        }
      } else if (c === QUOTE) {
        value = this.parseString();
      } else if (c === 0x2d || isDigit(c)) {
        value = this.parseNumber();
      } else if (c === 0x74 && s.startsWith('true', this.pos)) {
        this.pos += 4;
        value = true;
      } else if (c === 0x66 && s.startsWith('false', this.pos)) {
        this.pos += 5;
        value = false;
      } else if (c === 0x6e && s.startsWith('null', this.pos)) {
        this.pos += 4;
        value = null;
      } else {
        this.unexpected(this.pos, 'a value');
      }
      // Attach the finished value to its parents, closing every container that ends here.
      for (;;) {
        const top = containers[containers.length - 1];
        if (top === undefined) {
          this.skipWs();
          if (this.pos < s.length) this.fail(this.pos, 'unexpected data after the JSON value');
          return value;
        }
        const isArray = Array.isArray(top);
        if (isArray) top.push(value);
        else setKey(top, keys[keys.length - 1] as string, value);
        this.skipWs();
        const d = s.charCodeAt(this.pos);
        if (d === 0x2c) {
          this.pos++;
          if (!isArray) keys[keys.length - 1] = this.parseKey();
          break;
        }
        if (d === (isArray ? 0x5d : 0x7d)) {
          this.pos++;
          containers.pop();
          keys.pop();
          value = top;
          continue;
        }
        this.unexpected(this.pos, isArray ? '"," or "]"' : '"," or "}"');
      }
    }
  }

  private skipWs(): void {
    const s = this.s;
    let c = s.charCodeAt(this.pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++this.pos);
  }

  private parseKey(): string {
    this.skipWs();
    if (this.s.charCodeAt(this.pos) !== QUOTE) this.unexpected(this.pos, 'a string key');
    const key = this.parseString();
    this.skipWs();
    if (this.s.charCodeAt(this.pos) !== 0x3a) this.unexpected(this.pos, '":" after the key');
    this.pos++;
    return key;
  }

  private parseString(): string {
    const s = this.s;
    const start = this.pos + 1;
    let i = start;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === QUOTE) {
        this.pos = i + 1;
        return s.slice(start, i);
      }
      if (c === BACKSLASH) break;
      if (c < 0x20 || Number.isNaN(c)) this.badStringChar(i);
      i++;
    }
    let out = s.slice(start, i);
    let chunk = i; // start of the run of plain characters not yet copied to out
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === QUOTE) {
        this.pos = i + 1;
        return out + s.slice(chunk, i);
      }
      if (c === BACKSLASH) {
        out += s.slice(chunk, i);
        const e = s.charCodeAt(i + 1);
        const simple = ESCAPES[e];
        if (simple !== undefined) {
          out += simple;
          i += 2;
        } else if (e === 0x75 && /^[0-9a-fA-F]{4}$/.test(s.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(s.slice(i + 2, i + 6), 16));
          i += 6;
        } else if (Number.isNaN(e)) {
          this.fail(i + 1, 'unexpected end of input');
        } else {
          this.fail(i, `invalid escape ${JSON.stringify(s.slice(i, e === 0x75 ? i + 6 : i + 2))} in string`);
        }
        chunk = i;
        continue;
      }
      if (c < 0x20 || Number.isNaN(c)) this.badStringChar(i);
      i++;
    }
  }

  private badStringChar(i: number): never {
    if (i >= this.s.length) this.fail(i, 'unexpected end of input (unterminated string)');
    const code = this.s.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0');
    this.fail(i, `control character U+${code} in string (must be escaped)`);
  }

  private parseNumber(): number | bigint {
    const s = this.s;
    const start = this.pos;
    let i = start;
    if (s.charCodeAt(i) === 0x2d) i++;
    const first = s.charCodeAt(i);
    if (first === 0x30) i++;
    else if (isDigit(first)) while (isDigit(s.charCodeAt(i))) i++;
    else this.unexpected(i, 'a digit');
    let integer = true;
    if (s.charCodeAt(i) === 0x2e) {
      i++;
      if (!isDigit(s.charCodeAt(i))) this.unexpected(i, 'a digit after "."');
      while (isDigit(s.charCodeAt(i))) i++;
      integer = false;
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = s.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(s.charCodeAt(i))) this.unexpected(i, 'a digit in the exponent');
      while (isDigit(s.charCodeAt(i))) i++;
      integer = false;
    }
    this.pos = i;
    const text = s.slice(start, i);
    if (integer && i - start > 15) {
      const big = BigInt(text);
      if (big > MAX_SAFE || big < -MAX_SAFE) return big;
    }
    return Number(text);
  }

  private unexpected(at: number, expected: string): never {
    if (at >= this.s.length) this.fail(at, 'unexpected end of input');
    const ch = String.fromCodePoint(this.s.codePointAt(at) as number);
    this.fail(at, `unexpected character ${JSON.stringify(ch)}, expected ${expected}`);
  }

  private fail(at: number, detail: string): never {
    throw syntaxError(this.s, at, detail);
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const ESCAPES: Record<number, string> = {
  0x22: '"', 0x5c: '\\', 0x2f: '/', 0x62: '\b', 0x66: '\f', 0x6e: '\n', 0x72: '\r', 0x74: '\t',
};

const utf8 = new TextDecoder();

/**
 * JSON.parse that keeps every digit: integer literals beyond ±(2^53-1) become bigint.
 * When a pre-scan proves no such literal can exist, JSON.parse itself does the work (fast
 * path, no depth limit: V8's JSON.parse is iterative); otherwise an exact iterative tokenizer
 * runs, refusing nesting beyond MAX_JSON_DEPTH. Bytes are decoded as UTF-8 (invalid
 * sequences become U+FFFD, a BOM is dropped). Throws JsonSyntaxError with the position.
 */
export function parseJsonLossless(input: string | Uint8Array): JsonValue {
  const text = typeof input === 'string' ? input : utf8.decode(input);
  if (needsSlowPath(text)) return new LosslessParser(text).parse();
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    new LosslessParser(text).parse(); // throws a positioned JsonSyntaxError
    throw syntaxError(text, 0, err instanceof Error ? err.message : String(err));
  }
}

/** Parses with the bigint-preserving tokenizer only, skipping the JSON.parse fast path. */
export function parseJsonLosslessSlow(input: string): JsonValue {
  return new LosslessParser(input).parse();
}

/** A value nested deeper than MAX_JSON_DEPTH, refused by stringifyJson's exact writer. */
export class JsonDepthError extends Error {
  override readonly name = 'JsonDepthError';
  constructor() {
    super(`value nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

function scalar(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return 'null'; // undefined, function, symbol inside an array, like JSON.stringify
  }
}

interface Frame {
  readonly keys: readonly string[] | undefined;
  readonly value: unknown[] | Record<string, unknown>;
  i: number;
  first: boolean;
}

/** The exact writer: iterative (no recursion, so no stack overflow), bigint-aware, depth-bounded. */
function write(root: unknown, out: string[]): void {
  const stack: Frame[] = [];
  const open = (value: unknown): void => {
    if (value === null || typeof value !== 'object') {
      out.push(scalar(value));
      return;
    }
    if (stack.length >= MAX_JSON_DEPTH) throw new JsonDepthError();
    const toJson = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJson === 'function') {
      open((toJson as () => unknown).call(value));
      return;
    }
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ keys: undefined, value, i: 0, first: true });
    } else {
      out.push('{');
      stack.push({ keys: Object.keys(value), value: value as Record<string, unknown>, i: 0, first: true });
    }
  };
  open(root);
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.keys === undefined) {
      const arr = f.value as unknown[];
      if (f.i >= arr.length) {
        out.push(']');
        stack.pop();
        continue;
      }
      if (f.i > 0) out.push(',');
      open(arr[f.i++]);
      continue;
    }
    if (f.i >= f.keys.length) {
      out.push('}');
      stack.pop();
      continue;
    }
    const key = f.keys[f.i++]!;
    const v = (f.value as Record<string, unknown>)[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out.push(f.first ? JSON.stringify(key) : `,${JSON.stringify(key)}`, ':');
    f.first = false;
    open(v);
  }
}

/** JSON.stringify (compact) that writes bigint as a bare integer instead of throwing. */
export function stringifyJson(value: JsonValue): string {
  // fast path: JSON.stringify is exact for trees without bigints; it throws a TypeError on one
  // and a RangeError on very deep nesting: any failure goes to the exact writer, which handles
  // bigints and refuses nesting beyond MAX_JSON_DEPTH with a JsonDepthError
  try {
    return JSON.stringify(value);
  } catch {
    // fall through
  }
  const out: string[] = [];
  write(value, out);
  return out.join('');
}
