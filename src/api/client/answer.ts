/** Turning an HTTP answer (status, headers, bytes) into a decoded value or a CallError. */
import { JsonSyntaxError } from '../codec/lossless-json.ts';
import type { OperationName } from '../schema/operations.ts';
import { parseAnswer } from '../wire/answers.ts';
import { ValidationError } from '../wire/validation-error.ts';
import { bodyPrefixOf, CallError, type CallErrorInit } from './call-error.ts';
import { codeForHttpStatus, isConnectCode } from './connect-codes.ts';
import type { Redactor } from './redact.ts';

/** An answer as received: status, the headers that matter, and the body bytes. */
export interface ReceivedAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly contentEncoding: string;
  readonly body: Buffer;
}

/** What the interpretation needs besides the answer. */
export interface AnswerContext {
  readonly operation: OperationName;
  readonly elapsedMs: number;
  readonly redactor: Redactor;
}

/** parseAnswer without the per-operation result type (instantiating it here is too deep for tsc). */
const parseUntyped = parseAnswer as unknown as (op: OperationName, body: Uint8Array) => unknown;

type Interpreted<T> = { ok: true; value: T } | { ok: false; error: CallError };

/** Decodes a 200 answer, or builds the CallError for any other answer. */
export function interpretAnswer(answer: ReceivedAnswer, ctx: AnswerContext): Interpreted<unknown> {
  if (answer.contentEncoding !== '' && answer.contentEncoding !== 'identity') {
    const message = `answer uses content-encoding ${answer.contentEncoding}, which was not asked for`;
    return { ok: false, error: failure(answer, ctx, { kind: 'protocol', code: 'internal', message }) };
  }
  if (answer.status !== 200) return { ok: false, error: errorAnswer(answer, ctx) };
  try {
    return { ok: true, value: parseUntyped(ctx.operation, answer.body) };
  } catch (err) {
    if (err instanceof ValidationError) {
      const message = `answer does not match the ${ctx.operation} schema: ${err.message}`;
      return { ok: false, error: failure(answer, ctx, { kind: 'invalid_answer', code: 'internal', message, path: err.path }) };
    }
    const why = err instanceof JsonSyntaxError ? err.message : `cannot decode: ${String(err)}`;
    const what = answer.body.length === 0 ? 'answer body is empty' : `answer is not valid JSON: ${why}`;
    return { ok: false, error: failure(answer, ctx, { kind: 'invalid_answer', code: 'internal', message: what }) };
  }
}

/** The CallError of an answer larger than maxAnswerBytes (the bytes read so far are kept). */
export function oversizeError(answer: ReceivedAnswer, ctx: AnswerContext, limit: number): CallError {
  const message = `answer exceeds the limit of ${limit} bytes (maxAnswerBytes); reading stopped`;
  return failure(answer, ctx, { kind: 'protocol', code: 'resource_exhausted', message });
}

function errorAnswer(answer: ReceivedAnswer, ctx: AnswerContext): CallError {
  const parsed = parseConnectError(answer.body);
  if (parsed !== undefined) {
    const known = isConnectCode(parsed.code);
    const serverMessage = parsed.message !== '' ? parsed.message : `${parsed.code} with no message`;
    return new CallError({
      operation: ctx.operation,
      kind: 'connect',
      code: known ? (parsed.code as never) : 'unknown',
      message: ctx.redactor.text(known ? serverMessage : `unrecognised code ${JSON.stringify(parsed.code)}: ${serverMessage}`),
      details: ctx.redactor.deep(parsed.details),
      httpStatus: answer.status,
      elapsedMs: ctx.elapsedMs,
      body: ctx.redactor.bytes(answer.body),
    });
  }
  const type = answer.contentType === '' ? 'no content type' : answer.contentType;
  const message =
    answer.body.length === 0
      ? `HTTP ${answer.status} with an empty body`
      : `HTTP ${answer.status} answer is not a Connect error (${type}, ${answer.body.length} bytes)`;
  return failure(answer, ctx, { kind: 'protocol', code: codeForHttpStatus(answer.status), message });
}

/** A Connect error body: a JSON object whose `code` is a string. */
function parseConnectError(body: Buffer): { code: string; message: string; details: unknown[] } | undefined {
  if (body.length === 0) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const { code, message, details } = json as Record<string, unknown>;
  if (typeof code !== 'string' || code === '') return undefined;
  return {
    code,
    message: typeof message === 'string' ? message : '',
    details: Array.isArray(details) ? details : [],
  };
}

function failure(
  answer: ReceivedAnswer,
  ctx: AnswerContext,
  init: Pick<CallErrorInit, 'kind' | 'code' | 'message' | 'path'>,
): CallError {
  const body = ctx.redactor.bytes(answer.body);
  return new CallError({
    ...init,
    message: ctx.redactor.text(init.message),
    operation: ctx.operation,
    httpStatus: answer.status,
    elapsedMs: ctx.elapsedMs,
    bodyPrefix: body.length === 0 ? '' : bodyPrefixOf(body),
    body,
  });
}
