/**
 * Schema-driven decoding of wire JSON: accepts the server's style (every default written) and
 * the compact style (defaults omitted), camelCase and snake_case keys, keeps unknown fields,
 * and reports a mismatch with the JSON path of the offending value.
 *
 * The work is done by decoders compiled once per schema and per field type (see
 * compiled-decoder.ts): a 10,000-connection answer decodes several times faster than a
 * per-value walk over the schema.
 */
import type { FieldType, Infer, MessageSchema } from '../schema/fields.ts';
import { recordDecoderOf, valueDecoderOf } from './compiled-decoder.ts';

/** Decodes one message; throws ValidationError with the path relative to `value`. */
export function decodeMessage<M extends MessageSchema>(schema: M, value: unknown): Infer<M> {
  return recordDecoderOf(schema)(value) as never;
}

/** Decodes one message without the inferred type (for code generic over schemas). */
export function decodeRecord(schema: MessageSchema, value: unknown): Record<string, unknown> {
  return recordDecoderOf(schema)(value);
}

/** Decodes one value of a field type; throws ValidationError (CodecError for a bad scalar) with a relative path. */
export function decodeValue(type: FieldType, raw: unknown): unknown {
  return valueDecoderOf(type)(raw);
}
