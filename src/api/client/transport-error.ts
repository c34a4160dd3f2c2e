/** Classifying a failed HTTP exchange (refused, reset, DNS, TLS, timeout, cancel) as a CallError. */
import { CallError } from './call-error.ts';
import type { ConnectCode } from './connect-codes.ts';
import type { Redactor } from './redact.ts';

/** What is known about the exchange when it failed. */
export interface TransportContext {
  readonly operation: string;
  readonly host: string;
  readonly elapsedMs: number;
  readonly timeoutMs: number;
  /** the local deadline fired */
  readonly timedOut: boolean;
  /** the caller's signal fired */
  readonly canceled: boolean;
  /** status of the answer, when the failure happened while reading its body */
  readonly httpStatus?: number;
  readonly redactor: Redactor;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** The system or undici error code of an error, looking through `cause` and AggregateError. */
export function errorCodeOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR' && code !== 'ERR_ASSERTION') return code;
    const inner = (e as { errors?: unknown[] }).errors;
    e = Array.isArray(inner) && inner.length > 0 ? inner[0] : (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The CallError of an exchange that produced no usable answer. */
export function transportError(err: unknown, ctx: TransportContext): CallError {
  const transportCode = errorCodeOf(err);
  let code: ConnectCode = 'unavailable';
  let message: string;
  if (ctx.canceled) {
    code = 'canceled';
    message = `call canceled by the caller after ${Math.round(ctx.elapsedMs)} ms`;
  } else if (ctx.timedOut) {
    code = 'deadline_exceeded';
    message = `no complete answer from ${ctx.host} within ${ctx.timeoutMs} ms`;
  } else {
    switch (transportCode) {
      case 'ECONNREFUSED':
        message = `connection refused by ${ctx.host}`;
        break;
      case 'ECONNRESET':
      case 'EPIPE':
      case 'UND_ERR_SOCKET':
      case 'UND_ERR_CLOSED':
        message = `connection to ${ctx.host} closed unexpectedly (${transportCode})`;
        break;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
      case 'EAI_FAIL':
      case 'EAI_NONAME':
        message = `cannot resolve ${ctx.host} (${transportCode})`;
        break;
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        message = `${ctx.host} is unreachable (${transportCode})`;
        break;
      case 'UND_ERR_CONNECT_TIMEOUT':
      case 'ETIMEDOUT':
      case 'UND_ERR_HEADERS_TIMEOUT':
      case 'UND_ERR_BODY_TIMEOUT':
        code = 'deadline_exceeded';
        message = `timed out talking to ${ctx.host} (${transportCode})`;
        break;
      default:
        message =
          transportCode !== undefined && TLS_CODE.test(transportCode)
            ? `TLS with ${ctx.host} failed: ${messageOf(err)} (${transportCode})`
            : `request to ${ctx.host} failed: ${messageOf(err)}${transportCode ? ` (${transportCode})` : ''}`;
    }
  }
  return new CallError({
    operation: ctx.operation,
    kind: 'transport',
    code,
    message: ctx.redactor.text(message),
    elapsedMs: ctx.elapsedMs,
    httpStatus: ctx.httpStatus,
    transportCode,
  });
}
