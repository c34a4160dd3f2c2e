/** Typed failures of admin API calls, and of the client's configuration. */
import { isRetryableCode, type ConnectCode } from './connect-codes.ts';

/**
 * Where a call failed. 'connect': the server sent a Connect error body; 'transport': no usable
 * HTTP exchange (refused, reset, DNS, TLS, timeout, cancel); 'protocol': an answer that is not
 * a Connect error (proxy HTML, empty, malformed JSON, oversize); 'invalid_answer': HTTP 200
 * whose body does not parse or does not match the operation's schema.
 */
export type CallErrorKind = 'connect' | 'transport' | 'protocol' | 'invalid_answer';

/** Everything a CallError is built from. */
export interface CallErrorInit {
  readonly operation: string;
  readonly code: ConnectCode;
  readonly kind: CallErrorKind;
  readonly message: string;
  readonly elapsedMs: number;
  readonly httpStatus?: number;
  readonly details?: unknown[];
  readonly bodyPrefix?: string;
  readonly path?: string;
  readonly transportCode?: string;
  readonly body?: Buffer;
  readonly retryAfterMs?: number;
  readonly redactions?: number;
  readonly size?: number;
}

/** Longest body prefix kept on an error, in bytes. */
export const BODY_PREFIX_BYTES = 512;

/** A failed call: the Connect code plus what the user needs to see why (never a secret). */
export class CallError extends Error {
  override readonly name = 'CallError';
  /** the operation that was called, e.g. `ListKafkaConnections` */
  readonly operation: string;
  /** the Connect code: from the error body when there is one, else inferred */
  readonly code: ConnectCode;
  /** which layer failed */
  readonly kind: CallErrorKind;
  /** HTTP status of the answer, when one arrived */
  readonly httpStatus?: number;
  /** the Connect `details` array exactly as sent ([] when none) */
  readonly details: unknown[];
  /** milliseconds from sending the request to the failure */
  readonly elapsedMs: number;
  /** first 512 bytes of a non-Connect or invalid body, control characters escaped */
  readonly bodyPrefix?: string;
  /** JSON path of the offending value, for 'invalid_answer' from validation */
  readonly path?: string;
  /** system or undici error code of a transport failure, e.g. `ECONNREFUSED` */
  readonly transportCode?: string;
  /** the wait the server asked for with a Retry-After header, in ms */
  readonly retryAfterMs?: number;
  /** occurrences of the client's secrets removed from what the server sent */
  readonly redactions?: number;
  /** bytes of the answer received, when `body` keeps only its first bytes (oversize, over the decode budget) */
  readonly size?: number;
  /** raw bytes of the failed answer, secrets scrubbed; only the first 512 of an oversize one (not enumerable) */
  declare readonly body?: Buffer;

  constructor(init: CallErrorInit) {
    super(init.message);
    this.operation = init.operation;
    this.code = init.code;
    this.kind = init.kind;
    if (init.httpStatus !== undefined) this.httpStatus = init.httpStatus;
    this.details = init.details ?? [];
    this.elapsedMs = init.elapsedMs;
    if (init.bodyPrefix !== undefined) this.bodyPrefix = init.bodyPrefix;
    if (init.path !== undefined) this.path = init.path;
    if (init.transportCode !== undefined) this.transportCode = init.transportCode;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
    if (init.redactions !== undefined && init.redactions > 0) this.redactions = init.redactions;
    if (init.size !== undefined) this.size = init.size;
    if (init.body !== undefined) {
      Object.defineProperty(this, 'body', { value: init.body, enumerable: false, writable: false });
    }
  }

  /** True when retrying later may help (unavailable, deadline_exceeded, resource_exhausted). */
  get retryable(): boolean {
    return isRetryableCode(this.code);
  }

  /** One line for people: `ListKafkaConnections: unavailable (HTTP 503, protocol): message`. */
  describe(): string {
    const status = this.httpStatus === undefined ? this.kind : `HTTP ${this.httpStatus}, ${this.kind}`;
    return `${this.operation}: ${this.code} (${status}): ${this.message}`;
  }

  /** Same as describe(), so `String(err)` is informative. */
  override toString(): string {
    return `${this.name}: ${this.describe()}`;
  }

  /** The fields as plain JSON (no stack, no raw body). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      operation: this.operation,
      code: this.code,
      kind: this.kind,
      httpStatus: this.httpStatus,
      message: this.message,
      details: this.details,
      elapsedMs: this.elapsedMs,
      bodyPrefix: this.bodyPrefix,
      path: this.path,
      transportCode: this.transportCode,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

/** A client option or secret source that cannot be used; the message names it, never a secret value. */
export class ClientConfigError extends Error {
  override readonly name = 'ClientConfigError';
}

const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** The first 512 bytes of a body as text, with control characters escaped (`\n`, `\x1b`, `\u0085`). */
export function bodyPrefixOf(body: Uint8Array): string {
  const head = body.subarray(0, BODY_PREFIX_BYTES);
  return escapeControlChars(utf8.decode(head));
}

/** Escapes C0, DEL and C1 control characters so a body prefix cannot drive a terminal. */
export function escapeControlChars(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    switch (c) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default: {
        const n = c.charCodeAt(0);
        return n < 0x80 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
      }
    }
  });
}
