/** Making untrusted text (from the cluster, files or users) safe to print on a terminal or in one table cell. */

// C0 controls except tab/newline, DEL, C1 controls, and the bidi overrides/isolates
// eslint-disable-next-line no-control-regex -- the sanitizer exists to find these control characters
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

/** Any character sanitizeCell changes: UNSAFE's, newline and tab (one test instead of three replacements). */
// eslint-disable-next-line no-control-regex -- as UNSAFE, with newline and tab
const CELL_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

/** Replaces control characters, escape sequences and bidi overrides with visible escapes (`\x1b`, `\u202e`). */
export function sanitizeForTerminal(text: string): string {
  if (!CELL_UNSAFE.test(text)) return text;
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Like sanitizeForTerminal, and also escapes newlines and tabs, for one-line cells. */
export function sanitizeCell(text: string): string {
  if (!CELL_UNSAFE.test(text)) return text;
  return sanitizeForTerminal(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}
