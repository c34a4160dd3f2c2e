/**
 * Canonical printing of a checked filter: snake_case paths, one space around operators (none
 * around `:`), uppercase keywords, NOT for `-`, parentheses only where needed (and around OR
 * inside AND, for readers who expect OR to bind loosest), strings
 * double-quoted with the dialect's escapes, durations in their largest exact unit, timestamps
 * in UTC. The output re-parses to the same checked tree.
 */
import type { CheckedNode, CheckedRestriction, Dialect, Literal } from './ast.ts';
import { formatTimestamp } from '../api/codec/timestamp.ts';

/** Prints a checked tree in a dialect ('' for the empty filter). */
export function printFilter(node: CheckedNode | undefined, dialect: Dialect): string {
  return node === undefined ? '' : print(node, dialect);
}

/** Binding strength: explicit AND < implicit AND < OR < NOT < comparison. */
function level(n: CheckedNode): number {
  switch (n.kind) {
    case 'and':
      return n.implicit ? 1 : 0;
    case 'or':
      return 2;
    case 'not':
      return 3;
    case 'restriction':
      return 4;
  }
}

function print(n: CheckedNode, dialect: Dialect): string {
  switch (n.kind) {
    case 'and':
    case 'or': {
      const sep = n.kind === 'or' ? ' OR ' : n.implicit ? ' ' : ' AND ';
      const own = level(n);
      const parts: string[] = [];
      for (const c of n.children) {
        const s = print(c, dialect);
        // OR inside AND is parenthesised although it binds tighter: readers expect the opposite
        parts.push(level(c) <= own || (c.kind === 'or' && n.kind === 'and') ? `(${s})` : s);
      }
      return parts.join(sep);
    }
    case 'not': {
      const s = print(n.child, dialect);
      return n.child.kind === 'restriction' ? `NOT ${s}` : `NOT (${s})`;
    }
    case 'restriction':
      return printRestriction(n, dialect);
  }
}

function printRestriction(n: CheckedRestriction, dialect: Dialect): string {
  const op = n.op === ':' ? ':' : ` ${n.op} `;
  const t = n.test;
  switch (t.kind) {
    case 'present':
    case 'nonEmpty':
      return `${n.path.text}:*`;
    case 'hasKey':
      return `${n.path.text}:${t.keyIsInt ? t.key : quoteString(new TextEncoder().encode(t.key), dialect, false)}`;
    case 'contains':
    case 'compare': {
      const wildcardOp = n.op === '=' || n.op === '!=' || n.op === ':';
      return `${n.path.text}${op}${printLiteral(t.value, dialect, wildcardOp)}`;
    }
  }
}

/** Prints a typed literal in a dialect's syntax. */
export function printLiteral(lit: Literal, dialect: Dialect, wildcardOp = true): string {
  switch (lit.kind) {
    case 'string': {
      const body = quoteString(lit.bytes, dialect, dialect === 'extended' && wildcardOp, true);
      if (lit.wildcard === 'none') return `"${body}"`;
      if (lit.wildcard === 'any') return '"*"';
      const pre = lit.wildcard === 'suffix' || lit.wildcard === 'contains' ? '*' : '';
      const post = lit.wildcard === 'prefix' || lit.wildcard === 'contains' ? '*' : '';
      return `"${pre}${body}${post}"`;
    }
    case 'int':
      return lit.value.toString();
    case 'bool':
      return lit.value ? 'true' : 'false';
    case 'enum':
      return /^[A-Za-z0-9_.:-]+$/.test(lit.name) || dialect === 'server'
        ? lit.name
        : `"${quoteString(new TextEncoder().encode(lit.name), dialect, false, true)}"`;
    case 'duration':
      return formatFilterDuration(lit.nanos);
    case 'timestamp':
      return formatFilterTimestamp(lit.nanos);
  }
}

const UNITS: readonly [string, bigint][] = [
  ['h', 3_600_000_000_000n],
  ['m', 60_000_000_000n],
  ['s', 1_000_000_000n],
  ['ms', 1_000_000n],
  ['us', 1_000n],
  ['ns', 1n],
];

/** A duration in its largest exact unit (`90m`, `1500ms`, `0s`, `-2s`). */
export function formatFilterDuration(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  const abs = nanos < 0n ? -nanos : nanos;
  for (const [unit, size] of UNITS) if (abs % size === 0n) return `${sign}${abs / size}${unit}`;
  return `${sign}${abs}ns`;
}

/** A timestamp in UTC, with 0, 3, 6 or 9 fraction digits (the fewest that are exact). */
export function formatFilterTimestamp(nanos: bigint): string {
  const full = formatTimestamp(nanos); // YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ
  const frac = full.slice(20, 29);
  const base = full.slice(0, 19);
  if (frac === '000000000') return `${base}Z`;
  if (frac.endsWith('000000')) return `${base}.${frac.slice(0, 3)}Z`;
  if (frac.endsWith('000')) return `${base}.${frac.slice(0, 6)}Z`;
  return `${base}.${frac}Z`;
}

const ESC: Record<number, string> = {
  0x22: '\\"',
  0x5c: '\\\\',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
};
const hex2 = (b: number): string => `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`;

/** Length of the valid UTF-8 sequence at `i`, or 0 when the byte there does not start one. */
function utf8SeqLength(b: Uint8Array, i: number): number {
  const c = b[i] as number;
  if (c < 0x80) return 1;
  const n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (n === 0 || i + n > b.length) return 0;
  for (let k = 1; k < n; k++) if (((b[i + k] as number) & 0xc0) !== 0x80) return 0;
  const c1 = b[i + 1] as number;
  if (c === 0xe0 && c1 < 0xa0) return 0; // overlong
  if (c === 0xed && c1 > 0x9f) return 0; // surrogate
  if (c === 0xf0 && c1 < 0x90) return 0; // overlong
  if (c === 0xf4 && c1 > 0x8f) return 0; // above U+10FFFF
  return n;
}

/**
 * The inside of a double-quoted string for bytes: escapes for quotes, backslashes and controls,
 * `\xNN` for bytes that are not valid UTF-8, and `\*` for a literal star at either end when the
 * extended dialect would otherwise read it as a wildcard.
 */
function quoteString(bytes: Uint8Array, dialect: Dialect, escapeEdgeStars: boolean, bare = false): string {
  const dec = new TextDecoder('utf-8', { ignoreBOM: true }); // a U+FEFF in the string is a character, not a mark
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const n = utf8SeqLength(bytes, i);
    if (n === 0) {
      out += hex2(bytes[i] as number);
      i++;
      continue;
    }
    const c = bytes[i] as number;
    if (n === 1) {
      const esc = ESC[c];
      if (esc !== undefined) out += esc;
      else if (c < 0x20 || c === 0x7f) out += hex2(c);
      else if (c === 0x2a && escapeEdgeStars && dialect === 'extended' && (i === 0 || i === bytes.length - 1))
        out += '\\*';
      else out += String.fromCharCode(c);
    } else {
      out += dec.decode(bytes.subarray(i, i + n));
    }
    i += n;
  }
  return bare ? out : `"${out}"`;
}
