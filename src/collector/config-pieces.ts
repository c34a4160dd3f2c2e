/**
 * The zod pieces the configuration is built from (durations, sizes, cron expressions, URLs,
 * environment variable names, names of clusters, links and topics, addresses), and the
 * conversion of a zod issue into a ConfigError that names the key, flag or variable.
 * Values come as YAML gives them (numbers, booleans) or as text (environment, flags).
 */
import { isIPv4, isIPv6 } from 'node:net';
import { validateDetailed } from 'node-cron';
import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { parseDurationMs, TimeArgError } from './time-args.ts';

/** A problem a piece found in a value; the piece turns it into a zod issue. */
class Refused {
  readonly problem: string;
  constructor(problem: string) {
    this.problem = problem;
  }
}

/** A zod piece from a function that returns the checked value or a Refused. */
function piece<T>(check: (value: unknown) => T | Refused): z.ZodType<T, unknown> {
  return z.unknown().transform((value, ctx) => {
    const out = check(value);
    if (!(out instanceof Refused)) return out;
    ctx.issues.push({ code: 'custom', message: out.problem, input: value });
    return z.NEVER;
  });
}

/** Runs a piece on one value outside a schema (a part of a flag or variable): the value, or a Refused. */
function apply<T>(schema: z.ZodType<T, unknown>, value: unknown): T | Refused {
  const r = schema.safeParse(value);
  return r.success ? r.data : new Refused(r.error.issues[0]?.message ?? 'is not valid');
}

/** Longest duration a timer can wait (setTimeout's limit, about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;

/** Longest retention: 100 years. */
export const MAX_RETENTION_MS = 36_500 * 86_400_000;

/** A duration in words: `24d20h31m23.647s` for the limits quoted in messages. */
export function formatMs(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest / 1000}s`);
  return parts.join('');
}

/**
 * A duration (`10s`, `500ms`; `0` or the number 0 where zero is allowed) in milliseconds, at
 * most `max` (default: the longest a timer can wait).
 */
export function durationMs({ allowZero = false, max = MAX_TIMER_MS } = {}): z.ZodType<number, unknown> {
  return piece((value) => {
    if (allowZero && (value === 0 || value === '0')) return 0;
    if (typeof value !== 'string') return new Refused('must be a duration such as 10s or 500ms');
    let ms: number;
    try {
      ms = parseDurationMs(value);
    } catch (err) {
      return new Refused(err instanceof TimeArgError ? err.message : 'must be a duration such as 10s or 500ms');
    }
    if (!allowZero && ms <= 0) return new Refused('must be longer than 0');
    if (!(ms <= max)) return new Refused(`${value.trim()} is too long: at most ${formatMs(max)}`);
    return ms;
  });
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

/** A size (`128MiB`, `1GiB`, `500MB`, `65536`) in bytes, at least `min`. */
export function sizeBytes(min = 1): z.ZodType<number, unknown> {
  return piece((value) => {
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
    const m = /^([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)$/.exec(text);
    const unit = m === null ? undefined : SIZE_UNITS[(m[2] || 'b').toLowerCase()];
    if (m === null || unit === undefined) {
      return new Refused('must be a size such as 128MiB, 1GiB or 500MB (units B, KB, MB, GB, KiB, MiB, GiB)');
    }
    const bytes = Math.floor(Number(m[1]) * unit);
    if (!Number.isSafeInteger(bytes) || bytes < min) {
      return new Refused(`must be a size of at least ${min} bytes, at most ${Number.MAX_SAFE_INTEGER}`);
    }
    return bytes;
  });
}

/** An environment variable name. */
export const envName = z
  .string({ error: 'must name an environment variable (letters, digits and _)' })
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'must name an environment variable (letters, digits and _)' });

/** A string with something in it besides white space. */
export const nonEmpty = z
  .string({ error: 'must be a non-empty string' })
  .refine((s) => s.trim() !== '', { error: 'must be a non-empty string' });

/** A string (possibly empty). */
export const str = z.string({ error: 'must be a string' });

/** A boolean (`true`/`false`; from text also `1`/`0`, `yes`/`no`, `on`/`off`). */
export const bool = piece((value) => {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off', ''].includes(v)) return false;
  }
  return new Refused('must be true or false');
});

/** A whole number within bounds (a number, or decimal text from the environment and flags). */
export function int(min: number, max: number): z.ZodType<number, unknown> {
  return piece((value) => {
    const n = typeof value === 'string' && /^-?[0-9]+$/.test(value.trim()) ? Number(value.trim()) : value;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
      return new Refused(`must be a whole number from ${min} to ${max}`);
    }
    return n;
  });
}

/** An http(s) base URL without credentials, query or fragment; trailing slashes are dropped. */
export const baseUrl = piece((value) => {
  if (typeof value !== 'string' || value.trim() === '') return new Refused('must be an http:// or https:// URL');
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return new Refused('must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return new Refused('must be an http:// or https:// URL');
  if (url.username !== '' || url.password !== '') {
    return new Refused('must not contain credentials; use auth.username and auth.passwordEnv or passwordFile');
  }
  if (url.search !== '' || url.hash !== '') return new Refused('must not have a query or fragment');
  return text.replace(/\/+$/, '');
});

/** A dotted service prefix such as `platform.core.admin.v2`. */
export const servicePrefix = nonEmpty.regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, {
  error: 'must be a dotted name such as platform.core.admin.v2',
});

/** A cluster name: letters, digits, `.`, `_` and `-`. */
export const clusterName = nonEmpty.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
  error: 'must use only letters, digits, ".", "_" and "-"',
});

/**
 * A cron expression: six fields (second minute hour day month weekday) or five (minute hour day
 * month weekday, firing at second 0); `off`, `false` or null switch the schedule off (null).
 */
export const cronExpr = piece((value): string | null | Refused => {
  if (value === null || value === false || value === 'off' || value === 'false') return null;
  if (typeof value !== 'string') return new Refused('must be a cron expression such as "*/30 * * * * *", or off');
  const text = value.trim();
  const fields = text === '' ? 0 : text.split(/\s+/).length;
  if (fields !== 6 && fields !== 5) {
    return new Refused(
      `must have six fields (second minute hour day month weekday) or five (minute hour day month weekday), got ${fields}`,
    );
  }
  const check = validateDetailed(text);
  if (!check.valid) {
    const first = check.errors[0];
    return new Refused(`invalid cron expression ${JSON.stringify(text)}${first ? `: ${first.message}` : ''}`);
  }
  return text;
});

/**
 * A shadow link name: not empty, no `/` (it separates link and topic in a poll's target), no
 * control character, not `.` or `..`; surrounding white space is dropped.
 */
export const linkName = nonEmpty.transform((s, ctx) => {
  const text = s.trim();
  // eslint-disable-next-line no-control-regex
  if (text.includes('/') || /[\u0000-\u001f\u007f-\u009f]/.test(text) || text === '.' || text === '..') {
    ctx.issues.push({
      code: 'custom',
      input: s,
      message: `${JSON.stringify(text)} cannot be a shadow link name (no "/", no control character, not "." or "..")`,
    });
    return z.NEVER;
  }
  return text;
});

/** A topic name as Kafka allows it: 1 to 249 of letters, digits, `.`, `_` and `-`, not `.` or `..`. */
export const topicName = nonEmpty.transform((s, ctx) => {
  const text = s.trim();
  if (!/^[A-Za-z0-9._-]{1,249}$/.test(text) || text === '.' || text === '..') {
    ctx.issues.push({
      code: 'custom',
      input: s,
      message: `${JSON.stringify(text)} cannot be a topic name (1 to 249 letters, digits, ".", "_" or "-"; not "." or "..")`,
    });
    return z.NEVER;
  }
  return text;
});

/** A shadow link to follow, with the shadow topics to read one by one. */
export const shadowLink = z.strictObject(
  { name: linkName, topics: z.array(topicName).default([]) },
  { error: objectError(['name', 'topics']) },
);

/** `link` or `link:topic1,topic2` (the `--link` flag and FLIGHTREC_SHADOW_LINKS entries). */
export const linkSpec = piece((value) => {
  if (typeof value !== 'string') return new Refused('expected LINK or LINK:TOPIC,TOPIC');
  const [name = '', topics = ''] = value.split(':', 2);
  if (name.trim() === '') return new Refused(`${JSON.stringify(value)}: expected LINK or LINK:TOPIC,TOPIC`);
  const link = apply(linkName, name);
  if (link instanceof Refused) return link;
  const names: string[] = [];
  for (const t of topics.split(',').map((s) => s.trim())) {
    if (t === '') continue;
    const topic = apply(topicName, t);
    if (topic instanceof Refused) return topic;
    names.push(topic);
  }
  return { name: link, topics: names };
});

/** A listen address: `host:port` (IPv4, `[::1]`-style IPv6 or `localhost`) or a bare port on 127.0.0.1; port 0 takes any free port. */
export const listenAddress = piece((value): { host: string; port: number } | Refused => {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  const expected = 'must be PORT or HOST:PORT such as 127.0.0.1:9464, [::1]:9464 or localhost:9464';
  const m = /^(?:(\[[^\]]*\]|[^:[\]]+):)?([0-9]+)$/.exec(text);
  if (m === null) return new Refused(`${expected}, got ${JSON.stringify(value)}`);
  const [, rawHost, rawPort = ''] = m;
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port > 65_535)
    return new Refused(`port ${rawPort} is not from 0 (any free port) to 65535`);
  if (rawHost === undefined) return { host: '127.0.0.1', port };
  const host = rawHost.startsWith('[') ? rawHost.slice(1, -1) : rawHost;
  const ok = rawHost.startsWith('[') ? isIPv6(host) : isIPv4(host) || host === 'localhost';
  if (!ok)
    return new Refused(
      `host ${JSON.stringify(rawHost)} is not an IPv4 address, a [bracketed] IPv6 address or localhost`,
    );
  return { host, port };
});

/** The collector's log format. */
export const logFormat = z.enum(['text', 'json'], {
  error: (iss) => `must be text or json, got ${JSON.stringify(iss.input)}`,
});

/**
 * The error option of a strict object: an unknown key lists the keys it accepts (the key is
 * added to the path by {@link configErrorOf}), anything that is not a mapping says so.
 */
export function objectError(keys: readonly string[]): z.core.$ZodErrorMap {
  return (iss) => {
    if (iss.code === 'unrecognized_keys') return `unknown key (expected one of: ${keys.join(', ')})`;
    if (iss.code === 'invalid_type') return 'must be a mapping (key: value)';
    return undefined;
  };
}

/** A strict object whose messages follow {@link objectError}. */
export function strict<S extends z.core.$ZodLooseShape>(shape: S): z.ZodObject<S, z.core.$strict> {
  return z.strictObject(shape, { error: objectError(Object.keys(shape)) });
}

/** A list, with the message the configuration uses. */
export function list<T extends z.core.SomeType>(item: T): z.ZodArray<T> {
  return z.array(item, { error: 'must be a list' });
}

/** `clusters[1].schedules.GetShadowLink` from a zod path. */
export function dottedPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

/**
 * The ConfigError of the first issue of a failed parse. `keyOf` turns the issue's path into
 * the name the user wrote (a dotted key, `--flag` or `VARIABLE`); an unknown key is named itself.
 */
export function configErrorOf(
  error: z.ZodError,
  keyOf: (path: readonly PropertyKey[]) => string = dottedPath,
): ConfigError {
  const issue = error.issues[0];
  if (issue === undefined) return new ConfigError('', 'is not valid');
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  return new ConfigError(keyOf(path), issue.message);
}

const FOREVER = /^\s*(forever|off|none)\s*$/i;

/** A retention duration or size, or `forever` (also `off`, `none` or null): keep that history for good (null). */
export function orForever<T>(schema: z.ZodType<T, unknown>): z.ZodType<T | null, unknown> {
  return z.unknown().transform((value, ctx): T | null => {
    if (value === null || (typeof value === 'string' && FOREVER.test(value))) return null;
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    return z.NEVER;
  });
}
