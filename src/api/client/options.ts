/** Options of the Connect client, checked and resolved once at construction. */
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import type { Dispatcher } from 'undici';
import { DEFAULT_SERVICE_PREFIX } from '../schema/operations.ts';
import { ClientConfigError } from './call-error.ts';
import { DEFAULT_MAX_PARSE_BYTES } from './parse-budget.ts';
import { secretNeedles } from './redact.ts';
import { Secret } from './secret.ts';

/** How the client authenticates: HTTP Basic (user and password) or a Bearer token. */
export type ClientAuth =
  | { readonly kind: 'basic'; readonly username: string; readonly password: Secret }
  | { readonly kind: 'bearer'; readonly token: Secret };

/** TLS settings for an https base URL; the server certificate is verified unless insecureSkipVerify. */
export interface ClientTlsOptions {
  /** PEM file of the CA(s) to trust instead of the system store */
  readonly caFile?: string;
  /** PEM client certificate (mutual TLS); needs keyFile */
  readonly certFile?: string;
  /** PEM private key of the client certificate; needs certFile */
  readonly keyFile?: string;
  /** skip verification of the server certificate (test clusters only) */
  readonly insecureSkipVerify?: boolean;
}

/** Options of a ConnectClient. */
export interface ConnectClientOptions {
  /** `http://host:port` or `https://host:port`, optionally with a path prefix; no credentials */
  readonly baseUrl: string;
  /** the service prefix of the paths (default `platform.core.admin.v2`) */
  readonly servicePrefix?: string;
  readonly auth?: ClientAuth;
  /** only with an https base URL; ignored when a dispatcher is injected */
  readonly tls?: ClientTlsOptions;
  /** per-call timeout in ms, sent as Connect-Timeout-Ms and enforced locally (default 10000) */
  readonly timeoutMs?: number;
  /** largest answer body read, in bytes (default 128 MiB) */
  readonly maxAnswerBytes?: number;
  /** most memory decoding one answer may take, estimated from its bytes (default defaultMaxParseBytes()) */
  readonly maxParseBytes?: number;
  /** User-Agent header (default `flightrec`) */
  readonly userAgent?: string;
  /** an undici dispatcher to use instead of the client's own Agent; the caller closes it */
  readonly dispatcher?: Dispatcher;
  /** monotonic clock in ms for elapsed times (default `performance.now`) */
  readonly now?: () => number;
}

/** Default per-call timeout in milliseconds. */
export const DEFAULT_CALL_TIMEOUT_MS = 10_000;
/**
 * Default limit on the size of an answer body: 128 MiB, more than twice the largest real answers
 * (50,000 connections take about 55 MB); the parse budget guards what such a body may cost.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 128 * 1024 * 1024;

/** The default parse budget: 1 GiB, or a quarter of this process's heap limit when that is less. */
export function defaultMaxParseBytes(): number {
  return Math.min(DEFAULT_MAX_PARSE_BYTES, Math.floor(getHeapStatistics().heap_size_limit / 4));
}
/** Largest timeout: the longest a timer can wait (about 24.8 days; Connect-Timeout-Ms itself could carry 10 digits). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** Options after checking: everything the client needs, secrets still wrapped. */
export interface ResolvedOptions {
  readonly origin: string;
  readonly pathPrefix: string;
  readonly servicePrefix: string;
  readonly authorization?: Secret;
  readonly authDescription: string;
  /** the secret strings to scrub from anything a server sends back */
  readonly secretNeedles: readonly string[];
  readonly timeoutMs: number;
  readonly maxAnswerBytes: number;
  readonly maxParseBytes: number;
  readonly userAgent: string;
  readonly connect?: { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized: boolean };
  readonly now: () => number;
}

/** Checks a timeout: a positive number of milliseconds that fits Connect-Timeout-Ms. */
export function checkTimeout(ms: number, what: string): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMEOUT_MS) {
    throw new RangeError(`${what} must be a number of milliseconds in 1..${MAX_TIMEOUT_MS}, got ${String(ms)}`);
  }
  return Math.ceil(ms);
}

/** Checks and resolves client options; throws ClientConfigError naming the bad option. */
export function resolveOptions(options: ConnectClientOptions): ResolvedOptions {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new ClientConfigError('baseUrl is not a valid URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw new ClientConfigError('baseUrl must not contain credentials; use the auth option');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ClientConfigError(`baseUrl must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ClientConfigError(`baseUrl ${url.origin}${url.pathname} must not have a query or fragment`);
  }
  if (options.tls !== undefined && url.protocol !== 'https:') {
    throw new ClientConfigError(`tls options are given but baseUrl ${url.origin} is not https`);
  }
  const servicePrefix = options.servicePrefix ?? DEFAULT_SERVICE_PREFIX;
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(servicePrefix)) {
    throw new ClientConfigError(`servicePrefix ${JSON.stringify(servicePrefix)} is not a dotted package name`);
  }
  const maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  if (!Number.isSafeInteger(maxAnswerBytes) || maxAnswerBytes <= 0) {
    throw new RangeError(`maxAnswerBytes must be a positive integer, got ${String(maxAnswerBytes)}`);
  }
  const maxParseBytes = options.maxParseBytes ?? defaultMaxParseBytes();
  if (!Number.isSafeInteger(maxParseBytes) || maxParseBytes <= 0) {
    throw new RangeError(`maxParseBytes must be a positive integer, got ${String(maxParseBytes)}`);
  }
  const userAgent = options.userAgent ?? 'flightrec';
  // eslint-disable-next-line no-control-regex -- a user agent must not carry control characters
  if (/[\u0000-\u001f\u007f]/.test(userAgent)) throw new ClientConfigError('userAgent contains a control character');
  return {
    origin: url.origin,
    pathPrefix: url.pathname.replace(/\/+$/, ''),
    servicePrefix,
    ...resolveAuth(options.auth),
    timeoutMs: checkTimeout(options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, 'timeoutMs'),
    maxAnswerBytes,
    maxParseBytes,
    userAgent,
    connect: options.tls === undefined ? undefined : resolveTls(options.tls),
    now: options.now ?? (() => performance.now()),
  };
}

// eslint-disable-next-line no-control-regex -- finds control characters to refuse them
const CONTROL = /[\u0000-\u001f\u007f]/;

function resolveAuth(
  auth: ClientAuth | undefined,
): Pick<ResolvedOptions, 'authorization' | 'authDescription' | 'secretNeedles'> {
  if (auth === undefined) return { authDescription: 'none', secretNeedles: [] };
  if (auth.kind === 'basic') {
    if (!(auth.password instanceof Secret)) throw new ClientConfigError('auth.password must be a Secret');
    if (auth.username.includes(':') || CONTROL.test(auth.username)) {
      throw new ClientConfigError('auth.username must not contain ":" or control characters');
    }
    const password = auth.password.reveal();
    if (CONTROL.test(password)) throw new ClientConfigError('auth.password contains a control character');
    const encoded = Buffer.from(`${auth.username}:${password}`, 'utf8').toString('base64');
    return {
      authorization: new Secret(`Basic ${encoded}`),
      authDescription: `basic (user ${auth.username})`,
      secretNeedles: secretNeedles(password, auth.username),
    };
  }
  if (auth.kind === 'bearer') {
    if (!(auth.token instanceof Secret)) throw new ClientConfigError('auth.token must be a Secret');
    const token = auth.token.reveal();
    if (token === '' || CONTROL.test(token) || /\s/.test(token)) {
      throw new ClientConfigError('auth.token is empty or contains whitespace or control characters');
    }
    return {
      authorization: new Secret(`Bearer ${token}`),
      authDescription: 'bearer',
      secretNeedles: secretNeedles(token),
    };
  }
  throw new ClientConfigError(`auth.kind must be 'basic' or 'bearer'`);
}

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new ClientConfigError(`cannot read ${what} ${path}: ${typeof code === 'string' ? code : 'unknown error'}`);
  }
}

function resolveTls(tls: ClientTlsOptions): NonNullable<ResolvedOptions['connect']> {
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    throw new ClientConfigError('tls.certFile and tls.keyFile must be given together');
  }
  return {
    ca: tls.caFile === undefined ? undefined : readPem(tls.caFile, 'tls.caFile'),
    cert: tls.certFile === undefined ? undefined : readPem(tls.certFile, 'tls.certFile'),
    key: tls.keyFile === undefined ? undefined : readPem(tls.keyFile, 'tls.keyFile'),
    rejectUnauthorized: tls.insecureSkipVerify !== true,
  };
}
