// Makes the bundles' text ASCII only. esbuild escapes non-ASCII characters in strings and
// identifiers, but keeps them in comments and regular expression literals; one such character
// anywhere makes Node read a whole file as a two-byte (UTF-16) string, the slow path of
// readFileSync(file, 'utf8'): for dist/cli.cjs (1.8 MB) about 25 ms against 8, at every start of
// every command, and 3.5 MiB more memory (docs/performance.md, "What you wait for"). Each one is
// written as its \uXXXX escape instead, which means the same character in a comment, a string, a
// regular expression (a surrogate pair as two escapes: the same code point, with or without the
// `u` flag) and an untagged template; only a tagged template's raw text (String.raw) would differ,
// and the sources have none with such characters. Source map columns after an escape on its line
// shift by five per character (comments and a regular expression: nothing a stack trace names).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `text` with every character outside ASCII written as \uXXXX escapes (one per UTF-16 code unit). */
export function escapeNonAscii(text) {
  // an astral character is one match of two UTF-16 code units: both are escaped
  return text.replace(/[^\p{ASCII}]/gu, (c) =>
    Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

/** Rewrites `file` ASCII only; how many characters it escaped. */
export function asciiOnlyFile(file) {
  const text = readFileSync(file, 'utf8');
  let count = 0;
  const out = text.replace(/[^\p{ASCII}]/gu, (c) => (count++, escapeNonAscii(c)));
  if (count > 0) writeFileSync(file, out);
  return count;
}

/** Rewrites every .js and .cjs file under `dir` ASCII only. */
export function asciiOnlyTree(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) asciiOnlyTree(path);
    else if (/\.c?js$/.test(entry.name)) asciiOnlyFile(path);
  }
}
