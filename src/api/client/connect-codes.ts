/** The Connect error codes and their HTTP mappings (Connect protocol v1, admin API wire facts). */

/** The 16 Connect error codes, in their numeric (gRPC) order 1..16. */
export const CONNECT_CODES = [
  'canceled',
  'unknown',
  'invalid_argument',
  'deadline_exceeded',
  'not_found',
  'already_exists',
  'permission_denied',
  'resource_exhausted',
  'failed_precondition',
  'aborted',
  'out_of_range',
  'unimplemented',
  'internal',
  'unavailable',
  'data_loss',
  'unauthenticated',
] as const;

/** A Connect error code in its lower snake_case wire form. */
export type ConnectCode = (typeof CONNECT_CODES)[number];

const CODE_SET: ReadonlySet<string> = new Set(CONNECT_CODES);

/** True when `value` is one of the 16 Connect codes (exact lower snake_case spelling). */
export function isConnectCode(value: unknown): value is ConnectCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

/**
 * The HTTP status a server sends with each code (wire facts). `canceled` varies between
 * servers (408, 422 and 499 are all seen); 499 is what we emit, and readers trust the body.
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<ConnectCode, number>> = {
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
};

/** The HTTP status that accompanies a code in an error answer. */
export function httpStatusForCode(code: ConnectCode): number {
  return HTTP_STATUS_BY_CODE[code];
}

/**
 * The code inferred from an HTTP status when the body is not a Connect error (a proxy page,
 * an empty body). This is the Connect protocol's table, taken from the gRPC HTTP mapping and
 * implemented as `httpToCode` in connect-go: 400 internal (a 400 from an intermediary says the
 * request was mangled, not that our argument was wrong), 401 unauthenticated,
 * 403 permission_denied, 404 unimplemented, 429/502/503/504 unavailable, anything else unknown.
 * It is deliberately not the inverse of `httpStatusForCode`.
 */
export function codeForHttpStatus(status: number): ConnectCode {
  switch (status) {
    case 400:
      return 'internal';
    case 401:
      return 'unauthenticated';
    case 403:
      return 'permission_denied';
    case 404:
      return 'unimplemented';
    case 429:
    case 502:
    case 503:
    case 504:
      return 'unavailable';
    default:
      return 'unknown';
  }
}

/** Codes worth retrying later with back-off: the server was busy, overloaded or too slow. */
export const RETRYABLE_CODES: ReadonlySet<ConnectCode> = new Set<ConnectCode>([
  'unavailable',
  'deadline_exceeded',
  'resource_exhausted',
]);

/** True when a failure with this code may succeed if retried after a pause. */
export function isRetryableCode(code: ConnectCode): boolean {
  return RETRYABLE_CODES.has(code);
}
