/** Turning an HTTP answer (status, headers, bytes) into a decoded value or a CallError. */
import { JsonSyntaxError, MAX_JSON_DEPTH } from '../codec/lossless-json.ts';
import type { OperationName, ResponseOf } from '../schema/operations.ts';
import { operationCodecs } from '../wire/answers.ts';
import { ValidationError } from '../wire/validation-error.ts';
import { BODY_PREFIX_BYTES, bodyPrefixOf, CallError, type CallErrorInit } from './call-error.ts';
import { estimateParseBytes } from './parse-budget.ts';
import { codeForHttpStatus, isConnectCode } from './connect-codes.ts';
import type { Redactor } from './redact.ts';

/** An answer as received: status, the headers that matter, and the body bytes. */
export interface ReceivedAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly contentEncoding: string;
  /** the Retry-After header, as sent ('' when absent) */
  readonly retryAfter?: string;
  readonly body: Buffer;
}

/** What the interpretation needs besides the answer. */
export interface AnswerContext<N extends OperationName = OperationName> {
  readonly operation: N;
  readonly elapsedMs: number;
  readonly redactor: Redactor;
  /** most memory decoding the answer may take (estimated); undefined = no budget */
  readonly maxParseBytes?: number;
  /** the wall clock in ms, for a Retry-After given as an HTTP date */
  readonly wallNow?: () => number;
}

/** Longest wait a Retry-After may ask for that is kept (the retry policy caps it further): one day. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** The wait a Retry-After header asks for, in ms (seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, wallNow: () => number = Date.now): number | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  if (/^[0-9]+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  if (!/^[A-Za-z]{3}, [0-9]{2} [A-Za-z]{3} [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  if (!Number.isFinite(at)) return undefined;
  return Math.min(Math.max(0, at - wallNow()), MAX_RETRY_AFTER_MS);
}

/** Nesting depth of JSON bytes (brackets outside strings), counted up to `stop`. */
function jsonDepth(body: Uint8Array, stop: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max && (max = depth) > stop) return max;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

type Interpreted<T> = { ok: true; value: T } | { ok: false; error: CallError };

/** Decodes a 200 answer, or builds the CallError for any other answer. */
export function interpretAnswer<N extends OperationName>(
  answer: ReceivedAnswer,
  ctx: AnswerContext<N>,
): Interpreted<ResponseOf<N>> {
  if (answer.contentEncoding !== '' && answer.contentEncoding !== 'identity') {
    const message = `answer uses content-encoding ${answer.contentEncoding}, which was not asked for`;
    return { ok: false, error: failure(answer, ctx, { kind: 'protocol', code: 'internal', message }) };
  }
  if (answer.status !== 200) return { ok: false, error: errorAnswer(answer, ctx) };
  if (ctx.maxParseBytes !== undefined) {
    const need = estimateParseBytes(answer.body, ctx.maxParseBytes);
    if (need > ctx.maxParseBytes) {
      const message =
        `answer of ${answer.body.length} bytes would need about ${mib(need)} to decode, more than the budget of ` +
        `${mib(ctx.maxParseBytes)} (maxParseBytes); not decoded, its first bytes are kept`;
      const head = answer.body.subarray(0, BODY_PREFIX_BYTES);
      const init = { kind: 'protocol', code: 'resource_exhausted', message, size: answer.body.length } as const;
      return { ok: false, error: failure({ ...answer, body: head }, ctx, init) };
    }
  }
  try {
    return { ok: true, value: operationCodecs[ctx.operation].parseAnswer(answer.body) };
  } catch (err) {
    if (err instanceof ValidationError) {
      const message = `answer does not match the ${ctx.operation} schema: ${err.message}`;
      return {
        ok: false,
        error: failure(answer, ctx, { kind: 'invalid_answer', code: 'internal', message, path: err.path }),
      };
    }
    const why = err instanceof JsonSyntaxError ? err.message : `cannot decode: ${String(err)}`;
    const what = answer.body.length === 0 ? 'answer body is empty' : `answer is not valid JSON: ${why}`;
    return { ok: false, error: failure(answer, ctx, { kind: 'invalid_answer', code: 'internal', message: what }) };
  }
}

/** The CallError of an answer larger than maxAnswerBytes (its first bytes are kept; `size`: bytes read or declared). */
export function oversizeError(answer: ReceivedAnswer, ctx: AnswerContext, limit: number, size?: number): CallError {
  const message = `answer exceeds the limit of ${limit} bytes (maxAnswerBytes); reading stopped`;
  return failure(answer, ctx, {
    kind: 'protocol',
    code: 'resource_exhausted',
    message,
    ...(size === undefined ? {} : { size }),
  });
}

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

function errorAnswer(answer: ReceivedAnswer, ctx: AnswerContext): CallError {
  const before = ctx.redactor.replaced;
  const parsed = parseConnectError(answer.body);
  const retryAfterMs = parseRetryAfter(answer.retryAfter, ctx.wallNow);
  const retry = retryAfterMs === undefined ? {} : { retryAfterMs };
  if (parsed !== undefined) {
    const known = isConnectCode(parsed.code);
    const serverMessage = parsed.message !== '' ? parsed.message : `${parsed.code} with no message`;
    // details deeper than the readers parse back stay in the raw body only
    const tooDeep =
      parsed.details.length > 0 &&
      answer.body.length > 2 * MAX_JSON_DEPTH &&
      jsonDepth(answer.body, MAX_JSON_DEPTH + 2) > MAX_JSON_DEPTH + 2;
    const note = tooDeep ? ` (details nested deeper than ${MAX_JSON_DEPTH} levels: kept in the raw body only)` : '';
    return new CallError({
      operation: ctx.operation,
      kind: 'connect',
      code: isConnectCode(parsed.code) ? parsed.code : 'unknown',
      message:
        ctx.redactor.text(
          known ? serverMessage : `unrecognised code ${JSON.stringify(parsed.code)}: ${serverMessage}`,
        ) + note,
      details: tooDeep ? [] : ctx.redactor.deep(parsed.details),
      httpStatus: answer.status,
      elapsedMs: ctx.elapsedMs,
      body: ctx.redactor.bytes(answer.body),
      ...retry,
      redactions: ctx.redactor.replaced - before,
    });
  }
  const type = answer.contentType === '' ? 'no content type' : answer.contentType;
  const message =
    answer.body.length === 0
      ? `HTTP ${answer.status} with an empty body`
      : `HTTP ${answer.status} answer is not a Connect error (${type}, ${answer.body.length} bytes)`;
  return failure(answer, ctx, { kind: 'protocol', code: codeForHttpStatus(answer.status), message, ...retry });
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
  init: Pick<CallErrorInit, 'kind' | 'code' | 'message' | 'path' | 'retryAfterMs' | 'size'>,
): CallError {
  const before = ctx.redactor.replaced;
  const body = ctx.redactor.bytes(answer.body);
  return new CallError({
    ...init,
    message: ctx.redactor.text(init.message),
    redactions: ctx.redactor.replaced - before,
    operation: ctx.operation,
    httpStatus: answer.status,
    elapsedMs: ctx.elapsedMs,
    bodyPrefix: body.length === 0 ? '' : bodyPrefixOf(body),
    body,
  });
}
