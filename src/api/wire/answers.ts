/** Decoding and encoding whole requests and answers of the six operations. */
import { parseJsonLossless, stringifyJson, type JsonValue } from '../codec/lossless-json.ts';
import {
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
  type OperationSpec,
  type RequestOf,
  type ResponseOf,
} from '../schema/operations.ts';
import { decodeRecord } from './decode.ts';
import { decodeMessageBytes } from './direct-decoder.ts';
import { encodeMessage } from './encode.ts';

/** Decoding and encoding of one operation's requests and answers, with that operation's types. */
export interface OperationCodec<N extends OperationName> {
  /** validates and decodes a request from a parsed JSON tree */
  decodeRequest(json: unknown): RequestOf<N>;
  /** encodes a request body (server style, every field written) */
  encodeRequest(value: RequestOf<N>): string;
  /** validates and decodes an answer from a parsed JSON tree */
  decodeAnswer(json: unknown): ResponseOf<N>;
  /** parses (losslessly) and decodes an answer body: bytes by the direct decoder, text by the parser */
  parseAnswer(body: string | Uint8Array): ResponseOf<N>;
  /** encodes an answer as the server writes it (JSON tree) */
  encodeAnswerTree(value: ResponseOf<N>): { [key: string]: JsonValue };
  /** encodes an answer as the server writes it (JSON text) */
  encodeAnswer(value: ResponseOf<N>): string;
}

/** The codec of every operation by name; indexed with a generic name it keeps that operation's types. */
export type OperationCodecs = { readonly [N in OperationName]: OperationCodec<N> };

/** An operation's codec over plain records: what the schema-driven decoders and encoders take and give. */
interface RecordCodec {
  decodeRequest(json: unknown): Record<string, unknown>;
  encodeRequest(value: Record<string, unknown>): string;
  decodeAnswer(json: unknown): Record<string, unknown>;
  parseAnswer(body: string | Uint8Array): Record<string, unknown>;
  encodeAnswerTree(value: Record<string, unknown>): { [key: string]: JsonValue };
  encodeAnswer(value: Record<string, unknown>): string;
}

function recordCodec({ request, response }: OperationSpec): RecordCodec {
  return {
    decodeRequest: (json) => decodeRecord(request, json),
    encodeRequest: (value) => stringifyJson(encodeMessage(request, value)),
    decodeAnswer: (json) => decodeRecord(response, json),
    parseAnswer: (body) =>
      typeof body === 'string' ? decodeRecord(response, parseJsonLossless(body)) : decodeMessageBytes(response, body),
    encodeAnswerTree: (value) => encodeMessage(response, value),
    encodeAnswer: (value) => stringifyJson(encodeMessage(response, value)),
  };
}

/**
 * The codec of every operation. The one place where the decoded records are given the types
 * `RequestOf`/`ResponseOf` derive from the same schemas the decoders are compiled from (the
 * decoders' tests check every field against those schemas).
 */
export const operationCodecs = Object.fromEntries(
  OPERATION_NAMES.map((name) => [name, recordCodec(OPERATIONS[name])]),
) as OperationCodecs;

/** Validates and decodes an operation's answer from a parsed JSON tree. */
export function decodeAnswer<N extends OperationName>(op: N, json: unknown): ResponseOf<N> {
  return operationCodecs[op].decodeAnswer(json);
}

/**
 * Parses (losslessly) and decodes an operation's answer from its body: bytes go through the
 * direct decoder (same result and errors, no intermediate JSON tree), text through the parser.
 */
export function parseAnswer<N extends OperationName>(op: N, body: string | Uint8Array): ResponseOf<N> {
  return operationCodecs[op].parseAnswer(body);
}

/** Validates and decodes an operation's request body. */
export function decodeRequest<N extends OperationName>(op: N, json: unknown): RequestOf<N> {
  return operationCodecs[op].decodeRequest(json);
}

/** Encodes an answer as the server writes it (JSON tree). */
export function encodeAnswerTree<N extends OperationName>(op: N, value: ResponseOf<N>): { [key: string]: JsonValue } {
  return operationCodecs[op].encodeAnswerTree(value);
}

/** Encodes an answer as the server writes it (JSON text). */
export function encodeAnswer<N extends OperationName>(op: N, value: ResponseOf<N>): string {
  return operationCodecs[op].encodeAnswer(value);
}

/** Encodes a request body (server style, every field written). */
export function encodeRequest<N extends OperationName>(op: N, value: RequestOf<N>): string {
  return operationCodecs[op].encodeRequest(value);
}
