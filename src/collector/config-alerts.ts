/**
 * The `alerts:` section of the configuration and the alert flags (`--alertmanager URL`,
 * `--webhook URL`, `--webhook-secret-env`/`--webhook-secret-file`): receivers of the live alerts
 * with their credentials (named, never given), TLS, timeouts and filters. A receiver's URL may
 * carry a secret in its path or query (a webhook's), so it is never put into a message: names
 * are the kind and host, or the `name:` given.
 */
import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { bool, durationMs, envName, int, list, nonEmpty, strict } from './config-pieces.ts';
import type { AlertFilterConfig, AlertReceiverConfig, AlertsConfig, AuthConfig } from './config.ts';

/** Default: firing alerts are sent to Alertmanager again every minute (Prometheus's resend delay). */
export const DEFAULT_RESEND_INTERVAL_MS = 60_000;
/** Default: 1000 deliveries wait per receiver at most. */
export const DEFAULT_ALERT_QUEUE = 1000;
/** Default timeout of one delivery request: 10 s. */
export const DEFAULT_ALERT_TIMEOUT_MS = 10_000;
/** Default retries: 5 attempts, 1 s doubling up to 30 s. */
export const DEFAULT_ALERT_RETRY = { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 30_000 } as const;
/** Default filter: every kind at warn and above. */
export const DEFAULT_ALERT_FILTER: AlertFilterConfig = { minSeverity: 'warn', include: ['*'], exclude: [] };

const severity = z.enum(['info', 'warn', 'error'], { error: 'must be info, warn or error' });

/** A kind pattern: `*`, `family.*`, or a kind such as `shadow.lag-high` (letters, digits, `.`, `-`, `*`). */
const kindPattern = z
  .string({ error: 'must be a kind pattern such as shadow.* or connections.storm' })
  .regex(/^[a-z*][a-z0-9.*-]*$/, { error: 'must be a kind pattern such as shadow.* or connections.storm' });

/** An http(s) URL without credentials or fragment (a query is kept: some webhooks need one). */
const receiverUrl = z.unknown().transform((value, ctx) => {
  const fail = (message: string): never => {
    ctx.issues.push({ code: 'custom', message, input: '[url]' });
    return z.NEVER;
  };
  if (typeof value !== 'string' || value.trim() === '') return fail('must be an http:// or https:// URL');
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return fail('must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail('must be an http:// or https:// URL');
  if (url.username !== '' || url.password !== '')
    return fail('must not contain credentials; use auth (basic or bearer, from an environment variable or a file)');
  if (url.hash !== '') return fail('must not have a fragment');
  return url.href;
});

const receiverName = nonEmpty.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, {
  error: 'must be a name of letters, digits and ._:- (at most 64 characters)',
});

const secretInFile = (use: string) =>
  z.never({ error: `secrets are not written in the config; use ${use}` }).optional();

const receiverShape = {
  url: receiverUrl,
  name: receiverName.optional(),
  auth: strict({
    kind: z.enum(['none', 'basic', 'bearer'], { error: 'must be none, basic or bearer' }).optional(),
    username: nonEmpty.optional(),
    passwordEnv: envName.optional(),
    passwordFile: nonEmpty.optional(),
    tokenEnv: envName.optional(),
    tokenFile: nonEmpty.optional(),
    password: secretInFile('passwordEnv or passwordFile'),
    token: secretInFile('tokenEnv or tokenFile'),
  }).optional(),
  tls: strict({
    caFile: nonEmpty.optional(),
    certFile: nonEmpty.optional(),
    keyFile: nonEmpty.optional(),
    insecureSkipVerify: bool.optional(),
  }).optional(),
  timeout: durationMs().optional(),
  minSeverity: severity.optional(),
  include: list(kindPattern).optional(),
  exclude: list(kindPattern).optional(),
};

const webhookShape = {
  ...receiverShape,
  secretEnv: envName.optional(),
  secretFile: nonEmpty.optional(),
  secret: secretInFile('secretEnv or secretFile'),
};

/** The `alerts:` section. */
export const alertsSchema = strict({
  minSeverity: severity.optional(),
  include: list(kindPattern).optional(),
  exclude: list(kindPattern).optional(),
  resendInterval: durationMs({ max: 3_600_000 }).optional(),
  queueSize: int(1, 1_000_000).optional(),
  timeout: durationMs().optional(),
  retry: strict({
    maxAttempts: int(1, 100).optional(),
    baseDelay: durationMs().optional(),
    maxDelay: durationMs().optional(),
  }).optional(),
  alertmanagers: list(strict(receiverShape)).optional(),
  webhooks: list(strict(webhookShape)).optional(),
});

/** The `alerts:` section as the file gives it. */
export type AlertsLayer = z.output<typeof alertsSchema>;

/** The alert flags, as typed. */
export interface AlertFlags {
  readonly alertmanager?: readonly string[];
  readonly webhook?: readonly string[];
  readonly webhookSecretEnv?: string;
  readonly webhookSecretFile?: string;
}

type ReceiverLayer = z.output<ReturnType<typeof strict<typeof webhookShape>>>;

/** The alerts configuration from the file's section and the flags; undefined when no receiver is given. */
export function finalizeAlerts(file: AlertsLayer | undefined, flags: AlertFlags): AlertsConfig | undefined {
  const f = file ?? {};
  const defaults: AlertFilterConfig = {
    minSeverity: f.minSeverity ?? DEFAULT_ALERT_FILTER.minSeverity,
    include: f.include ?? DEFAULT_ALERT_FILTER.include,
    exclude: f.exclude ?? DEFAULT_ALERT_FILTER.exclude,
  };
  const timeoutMs = f.timeout ?? DEFAULT_ALERT_TIMEOUT_MS;
  const entries: { kind: AlertReceiverConfig['kind']; key: string; layer: ReceiverLayer }[] = [];
  (f.alertmanagers ?? []).forEach((layer, i) =>
    entries.push({ kind: 'alertmanager', key: `alerts.alertmanagers[${i}]`, layer }),
  );
  (f.webhooks ?? []).forEach((layer, i) => entries.push({ kind: 'webhook', key: `alerts.webhooks[${i}]`, layer }));
  const flagSecret = flagSecretOf(flags);
  for (const [kind, urls, flag] of [
    ['alertmanager', flags.alertmanager ?? [], '--alertmanager'],
    ['webhook', flags.webhook ?? [], '--webhook'],
  ] as const) {
    for (const text of urls) {
      const parsed = receiverUrl.safeParse(text);
      if (!parsed.success) throw new ConfigError(flag, parsed.error.issues[0]?.message ?? 'is not valid');
      // the same receiver in the file keeps its settings
      if (entries.some((e) => e.kind === kind && e.layer.url === parsed.data)) continue;
      const layer: ReceiverLayer = { url: parsed.data, ...(kind === 'webhook' ? flagSecret : {}) };
      entries.push({ kind, key: flag, layer });
    }
  }
  if (
    (flags.webhookSecretEnv !== undefined || flags.webhookSecretFile !== undefined) &&
    (flags.webhook ?? []).length === 0
  )
    throw new ConfigError(
      flags.webhookSecretEnv !== undefined ? '--webhook-secret-env' : '--webhook-secret-file',
      'needs --webhook',
    );
  if (entries.length === 0) return undefined;
  const names = new Map<string, number>();
  const receivers = entries.map(({ kind, key, layer }): AlertReceiverConfig => {
    const url = new URL(layer.url);
    let name = layer.name ?? `${kind}:${url.host}`;
    const n = (names.get(name) ?? 0) + 1;
    names.set(name, n);
    if (n > 1) {
      if (layer.name !== undefined) throw new ConfigError(`${key}.name`, `${JSON.stringify(name)} is used twice`);
      name = `${name}#${n}`;
    }
    if (layer.tls !== undefined && url.protocol !== 'https:')
      throw new ConfigError(`${key}.tls`, `TLS settings are given but the ${kind} URL is not https`);
    if (layer.tls !== undefined && (layer.tls.certFile === undefined) !== (layer.tls.keyFile === undefined))
      throw new ConfigError(`${key}.tls`, 'certFile and keyFile must be given together');
    if (layer.secretEnv !== undefined && layer.secretFile !== undefined)
      throw new ConfigError(`${key}.secretFile`, 'give either secretEnv or secretFile, not both');
    const secret =
      layer.secretEnv !== undefined
        ? { env: layer.secretEnv }
        : layer.secretFile !== undefined
          ? { file: layer.secretFile }
          : undefined;
    return {
      kind,
      url: layer.url,
      name,
      auth: authOf(layer.auth, `${key}.auth`),
      ...(layer.tls === undefined
        ? {}
        : { tls: { ...layer.tls, insecureSkipVerify: layer.tls.insecureSkipVerify ?? false } }),
      ...(secret === undefined ? {} : { secret }),
      timeoutMs: layer.timeout ?? timeoutMs,
      filter: {
        minSeverity: layer.minSeverity ?? defaults.minSeverity,
        include: layer.include ?? defaults.include,
        exclude: layer.exclude ?? defaults.exclude,
      },
    };
  });
  const retry = {
    maxAttempts: f.retry?.maxAttempts ?? DEFAULT_ALERT_RETRY.maxAttempts,
    baseDelayMs: f.retry?.baseDelay ?? DEFAULT_ALERT_RETRY.baseDelayMs,
    maxDelayMs: f.retry?.maxDelay ?? DEFAULT_ALERT_RETRY.maxDelayMs,
  };
  retry.maxDelayMs = Math.max(retry.maxDelayMs, retry.baseDelayMs);
  return {
    receivers,
    resendIntervalMs: f.resendInterval ?? DEFAULT_RESEND_INTERVAL_MS,
    queueSize: f.queueSize ?? DEFAULT_ALERT_QUEUE,
    retry,
  };
}

function flagSecretOf(flags: AlertFlags): { secretEnv?: string; secretFile?: string } {
  if (flags.webhookSecretEnv !== undefined && flags.webhookSecretFile !== undefined)
    throw new ConfigError(
      '--webhook-secret-file',
      'give either --webhook-secret-env or --webhook-secret-file, not both',
    );
  if (flags.webhookSecretEnv !== undefined) {
    const parsed = envName.safeParse(flags.webhookSecretEnv);
    if (!parsed.success)
      throw new ConfigError('--webhook-secret-env', parsed.error.issues[0]?.message ?? 'is not valid');
    return { secretEnv: parsed.data };
  }
  if (flags.webhookSecretFile !== undefined) {
    if (flags.webhookSecretFile.trim() === '') throw new ConfigError('--webhook-secret-file', 'must name a file');
    return { secretFile: flags.webhookSecretFile };
  }
  return {};
}

/** A receiver's authentication: its kind and sources, checked (no default variable: a receiver names its own). */
function authOf(layer: ReceiverLayer['auth'], key: string): AuthConfig {
  if (layer === undefined) return { kind: 'none' };
  const hasToken = layer.tokenEnv !== undefined || layer.tokenFile !== undefined;
  const hasBasic = layer.username !== undefined || layer.passwordEnv !== undefined || layer.passwordFile !== undefined;
  const kind = layer.kind ?? (hasToken ? 'bearer' : hasBasic ? 'basic' : 'none');
  if (kind === 'none') {
    if (hasToken || hasBasic) throw new ConfigError(`${key}.kind`, 'is none but credentials are given');
    return { kind: 'none' };
  }
  if (kind === 'basic') {
    if (hasToken)
      throw new ConfigError(`${key}.kind`, 'basic authentication takes a user name and a password, not a token');
    if (layer.username === undefined) throw new ConfigError(`${key}.username`, 'required for basic authentication');
    if (layer.passwordEnv !== undefined && layer.passwordFile !== undefined)
      throw new ConfigError(`${key}.passwordFile`, 'give either passwordEnv or passwordFile, not both');
    if (layer.passwordFile !== undefined)
      return { kind: 'basic', username: layer.username, passwordFile: layer.passwordFile };
    if (layer.passwordEnv === undefined)
      throw new ConfigError(`${key}.passwordEnv`, 'or passwordFile: required for basic authentication');
    return { kind: 'basic', username: layer.username, passwordEnv: layer.passwordEnv };
  }
  if (hasBasic)
    throw new ConfigError(`${key}.kind`, 'bearer authentication takes a token, not a user name or password');
  if (layer.tokenEnv !== undefined && layer.tokenFile !== undefined)
    throw new ConfigError(`${key}.tokenFile`, 'give either tokenEnv or tokenFile, not both');
  if (layer.tokenFile !== undefined) return { kind: 'bearer', tokenFile: layer.tokenFile };
  if (layer.tokenEnv === undefined)
    throw new ConfigError(`${key}.tokenEnv`, 'or tokenFile: required for bearer authentication');
  return { kind: 'bearer', tokenEnv: layer.tokenEnv };
}
