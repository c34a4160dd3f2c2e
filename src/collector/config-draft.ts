/**
 * Partial configuration layers (file, environment, flags) before defaults apply, the error
 * that names the offending key, and small checkers shared by the layers.
 */
import { validateDetailed } from 'node-cron';
import type { OperationName } from '../api/schema/operations.ts';
import type { ConnectionsConfig, ShadowLinkConfig } from './config.ts';
import type { RetentionDraft } from './config-retention.ts';
import type { RetryPolicy } from './retry.ts';
import { parseDurationMs, TimeArgError } from './time-args.ts';

/** A configuration value that cannot be used; `key` names it (`clusters[0].auth.passwordEnv`, `--timeout`, `FLIGHTREC_TIMEOUT`). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** the offending key, flag or environment variable */
  readonly key: string;

  constructor(key: string, problem: string) {
    super(key === '' ? problem : `${key}: ${problem}`);
    this.key = key;
  }
}

/** Authentication as one layer gives it; a later layer replaces the sources it sets. */
export interface AuthDraft {
  kind?: 'none' | 'basic' | 'bearer';
  username?: string;
  passwordEnv?: string;
  passwordFile?: string;
  tokenEnv?: string;
  tokenFile?: string;
}

/** TLS as one layer gives it. */
export interface TlsDraft {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  insecureSkipVerify?: boolean;
}

/** One cluster as one layer gives it. */
export interface ClusterDraft {
  name?: string;
  baseUrl?: string;
  servicePrefix?: string;
  timeoutMs?: number;
  maxAnswerBytes?: number;
  maxParseBytes?: number;
  auth?: AuthDraft;
  tls?: TlsDraft;
  shadowLinks?: ShadowLinkConfig[];
  connections?: Partial<ConnectionsConfig>;
  icebergTopics?: string[];
  schedules?: Partial<Record<OperationName, string | null>>;
}

/** The global settings as one layer gives them. */
export interface GlobalDraft {
  jitterMs?: number;
  maxHeldBytes?: number;
  maxAnswerBytes?: number;
  maxParseBytes?: number;
  keepRawAnswers?: boolean;
  shutdownTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  schedules?: Partial<Record<OperationName, string | null>>;
  retention?: RetentionDraft;
}

/** Merges a higher-precedence cluster layer over a lower one. */
export function mergeCluster(low: ClusterDraft, high: ClusterDraft): ClusterDraft {
  return {
    ...low,
    ...defined(high),
    auth: mergeAuth(low.auth, high.auth),
    tls: low.tls === undefined && high.tls === undefined ? undefined : { ...low.tls, ...defined(high.tls ?? {}) },
    connections: { ...low.connections, ...defined(high.connections ?? {}) },
    schedules: { ...low.schedules, ...defined(high.schedules ?? {}) },
  };
}

/** Merges a higher-precedence global layer over a lower one. */
export function mergeGlobal(low: GlobalDraft, high: GlobalDraft): GlobalDraft {
  return {
    ...low,
    ...defined(high),
    retry: { ...low.retry, ...defined(high.retry ?? {}) },
    schedules: { ...low.schedules, ...defined(high.schedules ?? {}) },
    retention: { ...low.retention, ...defined(high.retention ?? {}) },
  };
}

function mergeAuth(low: AuthDraft | undefined, high: AuthDraft | undefined): AuthDraft | undefined {
  if (high === undefined) return low;
  if (low === undefined) return high;
  const out: AuthDraft = { ...low };
  if (high.passwordEnv !== undefined || high.passwordFile !== undefined) {
    delete out.passwordEnv;
    delete out.passwordFile;
  }
  if (high.tokenEnv !== undefined || high.tokenFile !== undefined) {
    delete out.tokenEnv;
    delete out.tokenFile;
  }
  return { ...out, ...defined(high) };
}

/** A copy of `o` without its undefined properties (so a spread never overwrites a default with undefined). */
export function defined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

/** Longest duration a timer can wait (setTimeout's limit, about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

/** A duration in words: `24d20h31m23.647s` for the limits quoted in messages. */
export function formatMs(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest / 1000}s`);
  return parts.join('');
}

/**
 * Checks a duration text (`10s`, `500ms`; `0` or the number 0 where zero is allowed) and
 * returns milliseconds, at most `max` (default: the longest a timer can wait).
 */
export function durationMs(key: string, value: unknown, { allowZero = false, max = MAX_TIMER_MS } = {}): number {
  if (allowZero && (value === 0 || value === '0')) return 0;
  if (typeof value !== 'string') throw new ConfigError(key, 'must be a duration such as 10s or 500ms');
  let ms: number;
  try {
    ms = parseDurationMs(value);
  } catch (err) {
    throw new ConfigError(key, err instanceof TimeArgError ? err.message : 'must be a duration such as 10s or 500ms');
  }
  if (!allowZero && ms <= 0) throw new ConfigError(key, 'must be longer than 0');
  if (!(ms <= max)) throw new ConfigError(key, `${value.trim()} is too long: at most ${formatMs(max)}`);
  return ms;
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** Checks a size (`128MiB`, `1GiB`, `500MB`, `65536`) and returns bytes (at least `min`). */
export function sizeBytes(key: string, value: unknown, min = 1): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  const m = /^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)$/.exec(text);
  const unit = m === null ? undefined : SIZE_UNITS[(m[2] || 'b').toLowerCase()];
  if (m === null || unit === undefined) {
    throw new ConfigError(key, 'must be a size such as 128MiB, 1GiB or 500MB (units B, KB, MB, GB, KiB, MiB, GiB)');
  }
  const bytes = Math.floor(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes) || bytes < min) throw new ConfigError(key, `must be a size of at least ${min} bytes, at most ${Number.MAX_SAFE_INTEGER}`);
  return bytes;
}

/** Checks an environment variable name. */
export function envName(key: string, value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
    throw new ConfigError(key, 'must name an environment variable (letters, digits and _)');
  }
  return value;
}

/** Checks a non-empty string. */
export function nonEmpty(key: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(key, 'must be a non-empty string');
  return value;
}

/** Checks a string (possibly empty). */
export function str(key: string, value: unknown): string {
  if (typeof value !== 'string') throw new ConfigError(key, 'must be a string');
  return value;
}

/** Checks a boolean (`true`/`false`; from text also `1`/`0`, `yes`/`no`). */
export function bool(key: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off', ''].includes(v)) return false;
  }
  throw new ConfigError(key, 'must be true or false');
}

/** Checks a whole number within bounds (numbers, or decimal text from env and flags). */
export function int(key: string, value: unknown, min: number, max: number): number {
  const n = typeof value === 'string' && /^-?[0-9]+$/.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(key, `must be a whole number from ${min} to ${max}`);
  }
  return n;
}

/** Checks an http(s) base URL without credentials, query or fragment. */
export function baseUrl(key: string, value: unknown): string {
  const text = nonEmpty(key, value).trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(key, 'must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(key, 'must be an http:// or https:// URL');
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError(key, 'must not contain credentials; use auth.username and auth.passwordEnv or passwordFile');
  }
  if (url.search !== '' || url.hash !== '') throw new ConfigError(key, 'must not have a query or fragment');
  return text.replace(/\/+$/, '');
}

/** Checks a dotted service prefix such as `platform.core.admin.v2`. */
export function servicePrefix(key: string, value: unknown): string {
  const text = nonEmpty(key, value);
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(text)) {
    throw new ConfigError(key, 'must be a dotted name such as platform.core.admin.v2');
  }
  return text;
}

/**
 * Checks a cron expression: six fields (second minute hour day month weekday) or five (minute
 * hour day month weekday, firing at second 0); `off`, `false` or null switch the schedule off.
 */
export function cronExpr(key: string, value: unknown): string | null {
  if (value === null || value === false || value === 'off' || value === 'false') return null;
  if (typeof value !== 'string') throw new ConfigError(key, 'must be a cron expression such as "*/30 * * * * *", or off');
  const text = value.trim();
  const fields = text === '' ? 0 : text.split(/\s+/).length;
  if (fields !== 6 && fields !== 5) {
    throw new ConfigError(
      key,
      `must have six fields (second minute hour day month weekday) or five (minute hour day month weekday), got ${fields}`,
    );
  }
  const check = validateDetailed(text);
  if (!check.valid) {
    const first = check.errors[0];
    throw new ConfigError(key, `invalid cron expression ${JSON.stringify(text)}${first ? `: ${first.message}` : ''}`);
  }
  return text;
}

/**
 * Checks a shadow link name: not empty, no `/` (it separates link and topic in a poll's target),
 * no control character, not `.` or `..`.
 */
export function linkName(key: string, value: unknown): string {
  const text = nonEmpty(key, value).trim();
  // eslint-disable-next-line no-control-regex
  if (text.includes('/') || /[\u0000-\u001f\u007f-\u009f]/.test(text) || text === '.' || text === '..') {
    throw new ConfigError(key, `${JSON.stringify(text)} cannot be a shadow link name (no "/", no control character, not "." or "..")`);
  }
  return text;
}

/** Checks a topic name as Kafka allows it: 1 to 249 of letters, digits, `.`, `_` and `-`, not `.` or `..`. */
export function topicName(key: string, value: unknown): string {
  const text = nonEmpty(key, value).trim();
  if (!/^[A-Za-z0-9._-]{1,249}$/.test(text) || text === '.' || text === '..') {
    throw new ConfigError(key, `${JSON.stringify(text)} cannot be a topic name (1 to 249 letters, digits, ".", "_" or "-"; not "." or "..")`);
  }
  return text;
}

/** Parses `link` or `link:topic1,topic2` (flags and FLIGHTREC_SHADOW_LINKS entries). */
export function linkSpec(key: string, value: string): ShadowLinkConfig {
  const [name = '', topics = ''] = value.split(':', 2);
  if (name.trim() === '') throw new ConfigError(key, `${JSON.stringify(value)}: expected LINK or LINK:TOPIC,TOPIC`);
  return {
    name: linkName(key, name),
    topics: topics
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '')
      .map((t) => topicName(key, t)),
  };
}
