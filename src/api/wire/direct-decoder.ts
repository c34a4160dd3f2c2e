/**
 * The direct decoder: decodes a message straight from the UTF-8 bytes of its JSON text into the
 * typed records the compiled decoder returns, without building a JSON tree first. Readers are
 * compiled once per message schema and field type. The forms the server writes (expected keys
 * in schema order, plain strings, short int64 strings, plain integers) are read in place, with
 * repeated texts taken from caches; any other form of a value (escapes, bare int64 numbers,
 * numeric enums, unknown fields, ...) is parsed by the lossless parser and decoded by the
 * compiled (reference) decoder of its type. Anything surprising (malformed JSON, an invalid
 * value, a field given twice, deep nesting) abandons the attempt, and the whole body is decoded
 * by the reference path instead, so values and errors are always exactly the reference's.
 */
import { parseJsonLossless } from '../codec/lossless-json.ts';
import type { MessageSchema } from '../schema/fields.ts';
import { recordDecoderOf } from './compiled-decoder.ts';
import { recordReaderOf } from './direct-record.ts';
import { JsonBytes, skipWs } from './json-bytes.ts';

/**
 * Decodes a message from the UTF-8 bytes of its JSON text: exactly what the compiled decoder
 * returns for the lossless parse of the bytes (and the same errors), usually several times faster.
 */
export function decodeMessageBytes(schema: MessageSchema, bytes: Uint8Array): Record<string, unknown> {
  return tryDecodeDirect(schema, bytes) ?? recordDecoderOf(schema)(parseJsonLossless(bytes));
}

/** The direct decoding of a message, or undefined when the reference path must decide. */
export function tryDecodeDirect(schema: MessageSchema, bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const c = new JsonBytes(bytes);
    const b = c.b;
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) c.p = 3; // the UTF-8 decoder drops a BOM
    skipWs(c);
    if (b[c.p] !== 0x7b) return undefined;
    const out = recordReaderOf(schema)(c);
    skipWs(c);
    return c.p === c.n ? out : undefined;
  } catch {
    return undefined;
  }
}
