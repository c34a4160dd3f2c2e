/** The escaping of JSON text for a terminal: what JSON leaves raw but a terminal would act on. */

const UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
const HAS_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

const escapeUnsafe = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** JSON text with the characters JSON leaves raw but a terminal would act on (C1, bidi, line separators) escaped. */
export function safeText(json: string): string {
  return HAS_UNSAFE.test(json) ? json.replace(UNSAFE, escapeUnsafe) : json;
}

/** A string as a JSON string literal, terminal-safe (JSON.stringify, then safeText). */
export function quote(text: string): string {
  return safeText(JSON.stringify(text));
}

/**
 * Appends `text` as quote writes it to `out`: a string of printable ASCII without `"` or `\\` (most
 * names and ids) as itself between two quote fragments, without a copy; others through quote.
 */
export function pushQuoted(out: string[], text: string): void {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || c >= 0x7f) {
      out.push(quote(text));
      return;
    }
  }
  out.push('"', text, '"');
}
