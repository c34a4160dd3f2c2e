/** Decoding and encoding whole requests and answers of the six operations. */
import { parseJsonLossless, stringifyJson, type JsonValue } from '../codec/lossless-json.ts';
import { OPERATIONS, type OperationName, type RequestOf, type ResponseOf } from '../schema/operations.ts';
import type { MessageSchema } from '../schema/fields.ts';
import { decodeMessage } from './decode.ts';
import { decodeMessageBytes } from './direct-decoder.ts';
import { encodeMessage } from './encode.ts';

/** Validates and decodes an operation's answer from a parsed JSON tree. */
export function decodeAnswer<N extends OperationName>(op: N, json: unknown): ResponseOf<N> {
  const schema: MessageSchema = OPERATIONS[op].response;
  return decodeMessage(schema, json) as never;
}

/**
 * Parses (losslessly) and decodes an operation's answer from its body: bytes go through the
 * direct decoder (same result and errors, no intermediate JSON tree), text through the parser.
 */
export function parseAnswer<N extends OperationName>(op: N, body: string | Uint8Array): ResponseOf<N> {
  const schema: MessageSchema = OPERATIONS[op].response;
  if (typeof body !== 'string') return decodeMessageBytes(schema, body) as never;
  return decodeMessage(schema, parseJsonLossless(body)) as never;
}

/** Validates and decodes an operation's request body. */
export function decodeRequest<N extends OperationName>(op: N, json: unknown): RequestOf<N> {
  const schema: MessageSchema = OPERATIONS[op].request;
  return decodeMessage(schema, json) as never;
}

/** Encodes an answer as the server writes it (JSON tree). */
export function encodeAnswerTree<N extends OperationName>(op: N, value: ResponseOf<N>): { [key: string]: JsonValue } {
  return encodeMessage(OPERATIONS[op].response, value as Record<string, unknown>);
}

/** Encodes an answer as the server writes it (JSON text). */
export function encodeAnswer<N extends OperationName>(op: N, value: ResponseOf<N>): string {
  const schema: MessageSchema = OPERATIONS[op].response;
  return stringifyJson(encodeMessage(schema, value as Record<string, unknown>));
}

/** Encodes a request body (server style, every field written). */
export function encodeRequest<N extends OperationName>(op: N, value: RequestOf<N>): string {
  return stringifyJson(encodeMessage(OPERATIONS[op].request, value as Record<string, unknown>));
}
