/** The Connect (protocol v1, JSON) client of the admin API v2, built on undici. */
import { inspect } from 'node:util';
import { Agent, type Dispatcher } from 'undici';
import {
  isOperationName,
  operationPath,
  type OperationName,
  type RequestOf,
  type ResponseOf,
} from '../schema/operations.ts';
import { operationCodecs } from '../wire/answers.ts';
import { interpretAnswer, oversizeError, type ReceivedAnswer } from './answer.ts';
import { BODY_PREFIX_BYTES, CallError } from './call-error.ts';
import { checkTimeout, resolveOptions, type ConnectClientOptions, type ResolvedOptions } from './options.ts';
import { Redactor } from './redact.ts';
import { transportError } from './transport-error.ts';

/** A successful call: the decoded answer plus the raw bytes and timings the recorder keeps. */
export interface CallSuccess<T> {
  readonly ok: true;
  readonly value: T;
  readonly httpStatus: number;
  readonly elapsedMs: number;
  /** size of the answer body in bytes */
  readonly bytes: number;
  /** the answer body exactly as received */
  readonly body: Buffer;
}

/** A failed call. */
export interface CallFailure {
  readonly ok: false;
  readonly error: CallError;
}

/** The outcome of a call; a failed call is a value, never a thrown error. */
export type CallResult<T> = CallSuccess<T> | CallFailure;

/** Per-call options. */
export interface CallOptions {
  /** overrides the client's timeoutMs for this call */
  readonly timeoutMs?: number;
  /** aborting it cancels the call (code `canceled`) */
  readonly signal?: AbortSignal;
}

interface Received extends ReceivedAnswer {
  readonly oversize: boolean;
  /** bytes read (or declared) when oversize */
  readonly size?: number;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string {
  const v = headers[name];
  return (Array.isArray(v) ? v.join(', ') : (v ?? '')).trim();
}

async function readLimited(res: Dispatcher.ResponseData, limit: number): Promise<Received> {
  const base = {
    status: res.statusCode,
    contentType: header(res.headers, 'content-type'),
    contentEncoding: header(res.headers, 'content-encoding').toLowerCase(),
    retryAfter: header(res.headers, 'retry-after'),
  };
  const declared = Number(header(res.headers, 'content-length') || NaN);
  if (declared > limit) {
    res.body.destroy();
    return { ...base, body: Buffer.alloc(0), oversize: true, size: declared };
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (total + chunk.length > limit) {
      chunks.push(chunk);
      res.body.destroy();
      // an oversize answer is incomplete anyway: keep only its head for the error
      return {
        ...base,
        body: Buffer.concat(chunks, Math.min(total + chunk.length, BODY_PREFIX_BYTES)),
        oversize: true,
        size: total + chunk.length,
      };
    }
    chunks.push(chunk);
    total += chunk.length;
  }
  return { ...base, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total), oversize: false };
}

/**
 * Calls the six operations over HTTP/1.1 with keep-alive. One instance per cluster; `close()`
 * when done. Secrets stay wrapped: nothing this client prints, throws or returns contains them.
 */
export class ConnectClient {
  readonly #opts: ResolvedOptions;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #redactor: Redactor;
  #closed = false;

  constructor(options: ConnectClientOptions) {
    this.#opts = resolveOptions(options);
    this.#redactor = new Redactor(this.#opts.secretNeedles);
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({
        keepAliveTimeout: 30_000,
        ...(this.#opts.connect === undefined ? {} : { connect: this.#opts.connect }),
      });
  }

  /** The base URL (origin plus any path prefix) the client posts to. */
  get baseUrl(): string {
    return this.#opts.origin + this.#opts.pathPrefix;
  }

  /** The full URL of an operation. */
  urlOf(op: OperationName): string {
    return this.baseUrl + operationPath(op, this.#opts.servicePrefix);
  }

  /** Calls one operation; resolves to a CallResult and throws only on misuse (bad arguments, closed client). */
  async call<N extends OperationName>(
    op: N,
    request: RequestOf<N>,
    opts: CallOptions = {},
  ): Promise<CallResult<ResponseOf<N>>> {
    if (typeof op !== 'string' || !isOperationName(op)) throw new TypeError(`unknown operation ${String(op)}`);
    if (this.#closed) throw new Error('ConnectClient.call after close()');
    const timeoutMs = opts.timeoutMs === undefined ? this.#opts.timeoutMs : checkTimeout(opts.timeoutMs, 'timeoutMs');
    const body = operationCodecs[op].encodeRequest(request);
    const { now, origin } = this.#opts;
    const headers: Record<string, string> = {
      'connect-protocol-version': '1',
      'content-type': 'application/json',
      accept: 'application/json',
      'connect-timeout-ms': String(timeoutMs),
      'user-agent': this.#opts.userAgent,
    };
    if (this.#opts.authorization !== undefined) headers.authorization = this.#opts.authorization.reveal();

    const start = now();
    const state = { timedOut: false, canceled: false, httpStatus: undefined as number | undefined };
    const fail = (err: unknown): CallFailure => ({
      ok: false,
      error: transportError(err, {
        operation: op,
        host: new URL(origin).host,
        elapsedMs: now() - start,
        timeoutMs,
        timedOut: state.timedOut,
        canceled: state.canceled,
        httpStatus: state.httpStatus,
        redactor: this.#redactor,
      }),
    });
    if (opts.signal?.aborted) {
      state.canceled = true;
      return fail(opts.signal.reason);
    }
    const controller = new AbortController();
    const onAbort = (): void => {
      if (!state.timedOut) state.canceled = true;
      controller.abort();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      if (!state.canceled) state.timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const res = await this.#dispatcher.request({
        origin,
        path: this.#opts.pathPrefix + operationPath(op, this.#opts.servicePrefix),
        method: 'POST',
        headers,
        body,
        signal: controller.signal,
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      state.httpStatus = res.statusCode;
      const received = await readLimited(res, this.#opts.maxAnswerBytes);
      const ctx = {
        operation: op,
        elapsedMs: now() - start,
        redactor: this.#redactor,
        maxParseBytes: this.#opts.maxParseBytes,
      };
      if (received.oversize)
        return { ok: false, error: oversizeError(received, ctx, this.#opts.maxAnswerBytes, received.size) };
      const result = interpretAnswer(received, ctx);
      if (!result.ok) return result;
      return {
        ok: true,
        value: result.value,
        httpStatus: received.status,
        elapsedMs: ctx.elapsedMs,
        bytes: received.body.length,
        body: received.body,
      };
    } catch (err) {
      return fail(err);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Closes the client's own connection pool (an injected dispatcher is left to its owner). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  /** `ConnectClient(<baseUrl>)`; never shows credentials. */
  toString(): string {
    return `ConnectClient(${this.baseUrl})`;
  }

  /** The non-secret settings, for logs and debugging. */
  toJSON(): Record<string, unknown> {
    return {
      baseUrl: this.baseUrl,
      servicePrefix: this.#opts.servicePrefix,
      auth: this.#opts.authDescription,
      tls: this.#opts.connect === undefined ? undefined : { verify: this.#opts.connect.rejectUnauthorized },
      timeoutMs: this.#opts.timeoutMs,
      maxAnswerBytes: this.#opts.maxAnswerBytes,
      maxParseBytes: this.#opts.maxParseBytes,
      userAgent: this.#opts.userAgent,
      closed: this.#closed,
    };
  }

  /** Same fields as toJSON(), for `util.inspect` and `console.log`. */
  [inspect.custom](): string {
    return `ConnectClient ${inspect(this.toJSON())}`;
  }
}
