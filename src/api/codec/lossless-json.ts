/**
 * A parsed JSON value; integers beyond ±(2^53-1) are kept exactly as bigint, and any other number
 * literal a JS number would not give back as sent (`1e400`, `1.50`, `-0`, `1E5`) as a JsonNumber.
 */
export type JsonValue =
  null | boolean | number | bigint | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

type JsonObject = { [key: string]: JsonValue };

/** Deepest nesting of arrays and objects any reader or writer of JSON here accepts. */
export const MAX_JSON_DEPTH = 512;

/** Set by JsonNumber.toJSON: the JSON.stringify fast path met a number it cannot write exactly. */
let sawJsonNumber = false;

/**
 * A number literal kept exactly as sent, for the literals a JS number would change (`1e400` reads
 * as Infinity, `1.50` as 1.5, `-0` as 0). Immutable; stringifyJson writes `text` back verbatim.
 */
export class JsonNumber {
  /** The literal, exactly as it appeared in the JSON text (valid JSON number syntax). */
  readonly text: string;

  constructor(text: string) {
    this.text = text;
    Object.freeze(this);
  }

  /** The nearest JS number (Infinity for `1e400`). */
  get value(): number {
    return Number(this.text);
  }

  /** For plain JSON.stringify (not lossless): the nearest number; stringifyJson writes the literal instead. */
  toJSON(): number {
    sawJsonNumber = true;
    return this.value;
  }
}

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

/** JSON nested deeper than MAX_JSON_DEPTH levels: refused by every reader and writer (a typed decode error). */
export class JsonDepthError extends JsonSyntaxError {
  constructor(detail: string, offset: number, line: number, column: number) {
    super(detail, offset, line, column);
    this.name = 'JsonDepthError';
  }

  /** The error of a value too deep to be written (no position: it is not text yet). */
  static writing(): JsonDepthError {
    const err = new JsonDepthError(DEPTH_DETAIL, 0, 1, 1);
    err.message = `cannot write JSON ${DEPTH_DETAIL}`;
    return err;
  }
}

const DEPTH_DETAIL = `nesting deeper than ${MAX_JSON_DEPTH} levels`;

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

/** What scanJsonText found: nothing special, a number JSON.parse would not keep, or too deep nesting. */
const PLAIN = 0;
const SLOW = 1;
const DEEP = 2;

/**
 * One pass over a JSON text deciding whether JSON.parse alone reads it exactly and safely:
 * DEEP when arrays and objects nest beyond MAX_JSON_DEPTH, SLOW when a number literal would not
 * survive as a JS number (16 digits or more, a fraction, an exponent, `-0`), else PLAIN. Strings
 * are skipped with indexOf, so digits inside them never count. Malformed text gives some answer;
 * the parser that runs next reports the fault.
 */
function scanJsonText(s: string): number {
  const n = s.length;
  let depth = 0;
  let found = PLAIN;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      let j = s.indexOf('"', i + 1);
      for (;;) {
        if (j < 0) return found;
        let k = j - 1;
        while (s.charCodeAt(k) === BACKSLASH) k--;
        if ((j - 1 - k) % 2 === 0) break; // an even run of backslashes: the quote ends the string
        j = s.indexOf('"', j + 1);
      }
      i = j + 1;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return DEEP;
      i++;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
      i++;
    } else if (isDigit(c) || c === 0x2d) {
      const start = i;
      if (c === 0x2d) i++;
      const first = i;
      while (isDigit(s.charCodeAt(i))) i++;
      const x = s.charCodeAt(i);
      if (
        x === 0x2e ||
        x === 0x65 ||
        x === 0x45 ||
        i - first > 15 ||
        (c === 0x2d && i - first === 1 && s.charCodeAt(first) === 0x30)
      ) {
        found = SLOW;
      }
      if (i === start) i++;
    } else {
      i++;
    }
  }
  return found;
}

/**
 * True when JSON.parse alone would not read the text exactly (a number literal it would change)
 * or safely (nesting beyond MAX_JSON_DEPTH): the exact parser must run.
 */
export function needsSlowPath(s: string): boolean {
  return scanJsonText(s) !== PLAIN;
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
  #pos = 0;
  readonly #s: string;

  constructor(text: string) {
    this.#s = text;
  }

  parse(): JsonValue {
    const s = this.#s;
    const containers: Array<JsonValue[] | JsonObject> = [];
    const keys: string[] = [];
    let value: JsonValue;
    for (;;) {
      this.#skipWs();
      const c = s.charCodeAt(this.#pos);
      if (c === 0x7b || c === 0x5b) {
        if (containers.length >= MAX_JSON_DEPTH) this.#tooDeep(this.#pos);
        this.#pos++;
        this.#skipWs();
        if (c === 0x7b) {
          if (s.charCodeAt(this.#pos) === 0x7d) {
            this.#pos++;
            value = {};
          } else {
            containers.push({});
            keys.push(this.#parseKey());
            continue;
          }
        } else if (s.charCodeAt(this.#pos) === 0x5d) {
          this.#pos++;
          value = [];
        } else {
          containers.push([]);
          keys.push('');
          continue;
        }
      } else if (c === QUOTE) {
        value = this.#parseString();
      } else if (c === 0x2d || isDigit(c)) {
        value = this.#parseNumber();
      } else if (c === 0x74 && s.startsWith('true', this.#pos)) {
        this.#pos += 4;
        value = true;
      } else if (c === 0x66 && s.startsWith('false', this.#pos)) {
        this.#pos += 5;
        value = false;
      } else if (c === 0x6e && s.startsWith('null', this.#pos)) {
        this.#pos += 4;
        value = null;
      } else {
        this.#unexpected(this.#pos, 'a value');
      }
      // Attach the finished value to its parents, closing every container that ends here.
      for (;;) {
        const top = containers[containers.length - 1];
        if (top === undefined) {
          this.#skipWs();
          if (this.#pos < s.length) this.#fail(this.#pos, 'unexpected data after the JSON value');
          return value;
        }
        const isArray = Array.isArray(top);
        if (isArray) top.push(value);
        else setKey(top, keys[keys.length - 1] as string, value);
        this.#skipWs();
        const d = s.charCodeAt(this.#pos);
        if (d === 0x2c) {
          this.#pos++;
          if (!isArray) keys[keys.length - 1] = this.#parseKey();
          break;
        }
        if (d === (isArray ? 0x5d : 0x7d)) {
          this.#pos++;
          containers.pop();
          keys.pop();
          value = top;
          continue;
        }
        this.#unexpected(this.#pos, isArray ? '"," or "]"' : '"," or "}"');
      }
    }
  }

  #skipWs(): void {
    const s = this.#s;
    let c = s.charCodeAt(this.#pos);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = s.charCodeAt(++this.#pos);
  }

  #parseKey(): string {
    this.#skipWs();
    if (this.#s.charCodeAt(this.#pos) !== QUOTE) this.#unexpected(this.#pos, 'a string key');
    const key = this.#parseString();
    this.#skipWs();
    if (this.#s.charCodeAt(this.#pos) !== 0x3a) this.#unexpected(this.#pos, '":" after the key');
    this.#pos++;
    return key;
  }

  #parseString(): string {
    const s = this.#s;
    const start = this.#pos + 1;
    let i = start;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === QUOTE) {
        this.#pos = i + 1;
        return s.slice(start, i);
      }
      if (c === BACKSLASH) break;
      if (c < 0x20 || Number.isNaN(c)) this.#badStringChar(i);
      i++;
    }
    let out = s.slice(start, i);
    let chunk = i; // start of the run of plain characters not yet copied to out
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === QUOTE) {
        this.#pos = i + 1;
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
          this.#fail(i + 1, 'unexpected end of input');
        } else {
          this.#fail(i, `invalid escape ${JSON.stringify(s.slice(i, e === 0x75 ? i + 6 : i + 2))} in string`);
        }
        chunk = i;
        continue;
      }
      if (c < 0x20 || Number.isNaN(c)) this.#badStringChar(i);
      i++;
    }
  }

  #badStringChar(i: number): never {
    if (i >= this.#s.length) this.#fail(i, 'unexpected end of input (unterminated string)');
    const code = this.#s.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0');
    this.#fail(i, `control character U+${code} in string (must be escaped)`);
  }

  #parseNumber(): number | bigint | JsonNumber {
    const s = this.#s;
    const start = this.#pos;
    let i = start;
    if (s.charCodeAt(i) === 0x2d) i++;
    const first = s.charCodeAt(i);
    if (first === 0x30) i++;
    else if (isDigit(first)) while (isDigit(s.charCodeAt(i))) i++;
    else this.#unexpected(i, 'a digit');
    let integer = true;
    if (s.charCodeAt(i) === 0x2e) {
      i++;
      if (!isDigit(s.charCodeAt(i))) this.#unexpected(i, 'a digit after "."');
      while (isDigit(s.charCodeAt(i))) i++;
      integer = false;
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = s.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!isDigit(s.charCodeAt(i))) this.#unexpected(i, 'a digit in the exponent');
      while (isDigit(s.charCodeAt(i))) i++;
      integer = false;
    }
    this.#pos = i;
    const text = s.slice(start, i);
    if (integer && i - start > 15) {
      const big = BigInt(text);
      if (big > MAX_SAFE || big < -MAX_SAFE) return big;
    }
    const n = Number(text);
    // a literal the number does not give back (1e400, 1.50, -0, 1E5) is kept as sent
    return String(n) === text ? n : new JsonNumber(text);
  }

  #tooDeep(at: number): never {
    const e = syntaxError(this.#s, at, DEPTH_DETAIL);
    throw new JsonDepthError(e.detail, e.offset, e.line, e.column);
  }

  #unexpected(at: number, expected: string): never {
    if (at >= this.#s.length) this.#fail(at, 'unexpected end of input');
    const ch = String.fromCodePoint(this.#s.codePointAt(at) as number);
    this.#fail(at, `unexpected character ${JSON.stringify(ch)}, expected ${expected}`);
  }

  #fail(at: number, detail: string): never {
    throw syntaxError(this.#s, at, detail);
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

/** UTF-8 without dropping a BOM: a body-level BOM is removed explicitly, never one inside a value. */
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * JSON.parse that keeps every digit and every number literal: integer literals beyond ±(2^53-1)
 * become bigint, other literals a JS number would change become JsonNumber. A pre-scan decides:
 * when it proves neither such a literal nor nesting beyond MAX_JSON_DEPTH can exist, JSON.parse
 * itself does the work (fast path); otherwise an exact iterative tokenizer runs, refusing
 * nesting beyond MAX_JSON_DEPTH with a JsonDepthError. Bytes are decoded as UTF-8 (invalid
 * sequences become U+FFFD; a BOM before the value is dropped, as a UTF-8 decoder does; one
 * inside a string is kept). Throws JsonSyntaxError with the position.
 */
export function parseJsonLossless(input: string | Uint8Array): JsonValue {
  let text = typeof input === 'string' ? input : utf8.decode(input);
  if (typeof input !== 'string' && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (scanJsonText(text) !== PLAIN) return new LosslessParser(text).parse();
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

function write(value: unknown, out: string[], depth: number): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'number':
      out.push(Number.isFinite(value) ? String(value) : 'null');
      return;
    case 'bigint':
      out.push(value.toString());
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'object':
      break;
    default:
      out.push('null'); // undefined, function, symbol inside an array, like JSON.stringify
      return;
  }
  if (value instanceof JsonNumber) {
    out.push(value.text);
    return;
  }
  if (depth >= MAX_JSON_DEPTH) throw JsonDepthError.writing();
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      write(value[i], out, depth + 1);
    }
    out.push(']');
    return;
  }
  out.push('{');
  let first = true;
  for (const key of Object.keys(value as object)) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out.push(first ? JSON.stringify(key) : `,${JSON.stringify(key)}`, ':');
    first = false;
    write(v, out, depth + 1);
  }
  out.push('}');
}

/**
 * JSON.stringify (compact) that writes bigint as a bare integer and JsonNumber as its literal,
 * and refuses (JsonDepthError, never a stack overflow) a value nested beyond MAX_JSON_DEPTH, so
 * whatever it writes reads back with parseJsonLossless.
 */
export function stringifyJson(value: JsonValue): string {
  // fast path: JSON.stringify is exact for trees without bigints (it throws a TypeError on one),
  // without JsonNumbers (their toJSON says so) and not too deep (a RangeError, or the scan below)
  sawJsonNumber = false;
  try {
    const text = JSON.stringify(value);
    if (!sawJsonNumber && (text === undefined || text.length <= MAX_JSON_DEPTH || scanJsonText(text) !== DEEP))
      return text;
  } catch (err) {
    if (!(err instanceof TypeError) && !(err instanceof RangeError)) throw err;
  }
  const out: string[] = [];
  write(value, out, 0);
  return out.join('');
}

/** A deep copy of a JSON tree (bigints and JsonNumbers, being immutable, are shared). */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (value === null || typeof value !== 'object' || value instanceof JsonNumber) return value;
  if (Array.isArray(value)) return value.map((e) => cloneJson(e)) as T;
  const out: JsonObject = {};
  for (const key of Object.keys(value)) setKey(out, key, cloneJson((value as JsonObject)[key]!));
  return out as T;
}
