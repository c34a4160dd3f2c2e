/** UTF-8 helpers: the server compares strings bytewise as UTF-8, JS strings are UTF-16. */

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The UTF-8 bytes of a string. */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Decodes UTF-8 bytes, or returns undefined when they are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Maps a UTF-16 code unit >= 0xD800 so that code-unit order equals code-point (UTF-8 byte) order. */
function fixup(c: number): number {
  return c >= 0xe000 ? c - 0x800 : c + 0x2000;
}

/** Compares two strings in UTF-8 byte order (negative, 0, positive), without encoding them. */
export function compareUtf8(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = fixup(x);
        y = fixup(y);
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/** Compares two byte arrays lexicographically. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Number of Unicode code points in a string (what SQLite's length() and substr() count). */
export function codePointLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
