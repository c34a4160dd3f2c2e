/**
 * Loading the collector configuration: YAML file, then environment, then flags (precedence
 * flags > env > file > defaults), validated with messages that name the key, flag or variable.
 */
import { readFileSync } from 'node:fs';
import {
  DEFAULT_CLUSTER_NAME,
  DEFAULT_CONNECTIONS,
  DEFAULT_JITTER_MS,
  DEFAULT_PASSWORD_ENV,
  DEFAULT_SCHEDULES,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_TOKEN_ENV,
  type AuthConfig,
  type ClusterConfig,
  type CollectorConfig,
} from './config.ts';
import { DEFAULT_SERVICE_PREFIX } from '../api/schema/operations.ts';
import {
  baseUrl,
  bool,
  ConfigError,
  defined,
  durationMs,
  envName,
  int,
  linkSpec,
  mergeCluster,
  mergeGlobal,
  nonEmpty,
  servicePrefix,
  type AuthDraft,
  type ClusterDraft,
  sizeBytes,
  type GlobalDraft,
} from './config-draft.ts';
import { DEFAULT_MAX_HELD_BYTES } from './held-polls.ts';
import { clusterName, parseConfigFile, parseSchedules } from './config-file.ts';
import { DEFAULT_RETRY } from './retry.ts';

/** Collector flags from the command line (all optional; text as typed). */
export interface CollectFlags {
  readonly cluster?: string;
  readonly baseUrl?: string;
  readonly servicePrefix?: string;
  readonly timeout?: string;
  readonly username?: string;
  readonly passwordEnv?: string;
  readonly passwordFile?: string;
  readonly tokenEnv?: string;
  readonly tokenFile?: string;
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly insecureSkipVerify?: boolean;
  /** `LINK` or `LINK:TOPIC,TOPIC`, repeatable */
  readonly link?: readonly string[];
  readonly pageSize?: string;
  readonly jitter?: string;
  readonly shutdownTimeout?: string;
  /** `OPERATION=CRON` or `GROUP=CRON`, repeatable */
  readonly schedule?: readonly string[];
  readonly keepRawAnswers?: boolean;
  /** a size, e.g. 64MiB */
  readonly maxAnswerSize?: string;
  /** a size, e.g. 512MiB */
  readonly maxHeldMemory?: string;
}

/** Everything the configuration is built from. */
export interface ConfigInput {
  /** the config file's text and path, when one is used */
  readonly file?: { readonly text: string; readonly path: string };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly flags: CollectFlags;
  /** use only the global settings of the file (the clusters come from flags, e.g. --simulate) */
  readonly ignoreFileClusters?: boolean;
}

/** Reads a config file; a missing or unreadable file is a ConfigError naming it. */
export function readConfigFile(path: string): { text: string; path: string } {
  try {
    return { text: readFileSync(path, 'utf8'), path };
  } catch (err) {
    const code = (err as { code?: string }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? 'cannot read');
    throw new ConfigError('', `config file ${path}: ${why}`);
  }
}

/** The environment layer: `FLIGHTREC_*` variables for the selected cluster and the globals. */
export function envLayer(env: ConfigInput['env']): { cluster: ClusterDraft; global: GlobalDraft } {
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  const on = <T>(name: string, check: (key: string, v: string) => T): T | undefined => {
    const v = get(name);
    return v === undefined ? undefined : check(name, v);
  };
  const auth: AuthDraft = {
    username: on('FLIGHTREC_USERNAME', nonEmpty),
    passwordEnv: on('FLIGHTREC_PASSWORD_ENV', envName),
    passwordFile: on('FLIGHTREC_PASSWORD_FILE', nonEmpty),
    tokenEnv: on('FLIGHTREC_TOKEN_ENV', envName),
    tokenFile: on('FLIGHTREC_TOKEN_FILE', nonEmpty),
  };
  const links = on('FLIGHTREC_SHADOW_LINKS', (k, v) =>
    v
      .split(/\s*;\s*|\s+/)
      .filter((s) => s !== '')
      .map((s) => linkSpec(k, s)),
  );
  const cluster: ClusterDraft = {
    baseUrl: on('FLIGHTREC_BASE_URL', baseUrl),
    servicePrefix: on('FLIGHTREC_SERVICE_PREFIX', servicePrefix),
    timeoutMs: on('FLIGHTREC_TIMEOUT', (k, v) => durationMs(k, v)),
    maxAnswerBytes: on('FLIGHTREC_MAX_ANSWER_SIZE', (k, v) => sizeBytes(k, v)),
    maxParseBytes: on('FLIGHTREC_MAX_DECODE_MEMORY', (k, v) => sizeBytes(k, v)),
    auth: hasAny(auth) ? auth : undefined,
    tls: tlsDraft({
      caFile: get('FLIGHTREC_CA_FILE'),
      certFile: get('FLIGHTREC_CERT_FILE'),
      keyFile: get('FLIGHTREC_KEY_FILE'),
      insecureSkipVerify: on('FLIGHTREC_INSECURE_SKIP_VERIFY', bool),
    }),
    shadowLinks: links,
  };
  const global: GlobalDraft = {
    jitterMs: on('FLIGHTREC_JITTER', (k, v) => durationMs(k, v, { allowZero: true })),
    shutdownTimeoutMs: on('FLIGHTREC_SHUTDOWN_TIMEOUT', (k, v) => durationMs(k, v)),
    keepRawAnswers: on('FLIGHTREC_KEEP_RAW_ANSWERS', bool),
    maxHeldBytes: on('FLIGHTREC_MAX_HELD_MEMORY', (k, v) => sizeBytes(k, v)),
  };
  return { cluster, global };
}

/** The flags layer. */
export function flagsLayer(flags: CollectFlags): { cluster: ClusterDraft; global: GlobalDraft } {
  const auth: AuthDraft = {
    username: flags.username === undefined ? undefined : nonEmpty('--username', flags.username),
    passwordEnv: flags.passwordEnv === undefined ? undefined : envName('--password-env', flags.passwordEnv),
    passwordFile: flags.passwordFile === undefined ? undefined : nonEmpty('--password-file', flags.passwordFile),
    tokenEnv: flags.tokenEnv === undefined ? undefined : envName('--token-env', flags.tokenEnv),
    tokenFile: flags.tokenFile === undefined ? undefined : nonEmpty('--token-file', flags.tokenFile),
  };
  if (auth.passwordEnv !== undefined && auth.passwordFile !== undefined) {
    throw new ConfigError('--password-file', 'give either --password-env or --password-file, not both');
  }
  if (auth.tokenEnv !== undefined && auth.tokenFile !== undefined) {
    throw new ConfigError('--token-file', 'give either --token-env or --token-file, not both');
  }
  let schedules: ClusterDraft['schedules'];
  for (const item of flags.schedule ?? []) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new ConfigError('--schedule', `${JSON.stringify(item)}: expected OPERATION=CRON, e.g. connections="*/10 * * * * *"`);
    const parsed = parseSchedules('--schedule', { [item.slice(0, eq).trim()]: item.slice(eq + 1) });
    schedules = { ...schedules, ...parsed };
  }
  const cluster: ClusterDraft = {
    baseUrl: flags.baseUrl === undefined ? undefined : baseUrl('--base-url', flags.baseUrl),
    servicePrefix: flags.servicePrefix === undefined ? undefined : servicePrefix('--service-prefix', flags.servicePrefix),
    timeoutMs: flags.timeout === undefined ? undefined : durationMs('--timeout', flags.timeout),
    maxAnswerBytes: flags.maxAnswerSize === undefined ? undefined : sizeBytes('--max-answer-size', flags.maxAnswerSize),
    auth: hasAny(auth) ? auth : undefined,
    tls: tlsDraft({
      caFile: flags.caFile,
      certFile: flags.certFile,
      keyFile: flags.keyFile,
      insecureSkipVerify: flags.insecureSkipVerify,
    }),
    shadowLinks: flags.link === undefined || flags.link.length === 0 ? undefined : flags.link.map((l) => linkSpec('--link', l)),
    connections: flags.pageSize === undefined ? undefined : { pageSize: int('--page-size', flags.pageSize, 0, 2_147_483_647) },
    schedules,
  };
  const global: GlobalDraft = {
    jitterMs: flags.jitter === undefined ? undefined : durationMs('--jitter', flags.jitter, { allowZero: true }),
    shutdownTimeoutMs: flags.shutdownTimeout === undefined ? undefined : durationMs('--shutdown-timeout', flags.shutdownTimeout),
    keepRawAnswers: flags.keepRawAnswers,
    maxHeldBytes: flags.maxHeldMemory === undefined ? undefined : sizeBytes('--max-held-memory', flags.maxHeldMemory),
  };
  return { cluster, global };
}

function hasAny(o: object): boolean {
  return Object.values(o).some((v) => v !== undefined);
}

function tlsDraft(t: ClusterDraft['tls'] & object): ClusterDraft['tls'] {
  return hasAny(t) ? t : undefined;
}

/** Loads, merges and validates the whole configuration. Throws ConfigError. */
export function loadCollectorConfig(input: ConfigInput): CollectorConfig {
  const file = input.file === undefined ? { global: {}, clusters: [] } : parseConfigFile(input.file.text, input.file.path);
  const fileClusters = input.ignoreFileClusters === true ? [] : file.clusters;
  const env = envLayer(input.env);
  const flags = flagsLayer(input.flags);
  const global = mergeGlobal(mergeGlobal(file.global, env.global), flags.global);
  const overrides = mergeCluster(env.cluster, flags.cluster);
  const overridden = [env.cluster, flags.cluster].some(hasAny);
  const wanted = input.flags.cluster ?? input.env.FLIGHTREC_CLUSTER;
  if (wanted !== undefined && wanted !== '') clusterName(input.flags.cluster !== undefined ? '--cluster' : 'FLIGHTREC_CLUSTER', wanted);

  if (fileClusters.length > 1) {
    fileClusters.forEach((c, i) => {
      if (c.name === undefined) throw new ConfigError(`clusters[${i}].name`, 'required when several clusters are configured');
    });
  }
  const named = fileClusters.map((c, i) => ({ draft: c, key: `clusters[${i}]`, name: c.name ?? DEFAULT_CLUSTER_NAME }));
  let chosen: { draft: ClusterDraft; key: string; name: string }[];
  if (wanted !== undefined && wanted !== '') {
    const hit = named.find((c) => c.name === wanted);
    if (hit !== undefined) chosen = [{ ...hit, draft: mergeCluster(hit.draft, overrides) }];
    else if (overrides.baseUrl !== undefined) chosen = [{ draft: overrides, key: '--base-url', name: wanted }];
    else {
      const known = named.map((c) => c.name).join(', ');
      throw new ConfigError('--cluster', `no cluster named ${JSON.stringify(wanted)} in the config${known ? ` (known: ${known})` : ''} and no --base-url given`);
    }
  } else if (named.length === 0) {
    if (overrides.baseUrl === undefined) {
      throw new ConfigError('', 'no cluster to record: give --base-url URL, set FLIGHTREC_BASE_URL, or list clusters in a config file (--config)');
    }
    chosen = [{ draft: overrides, key: '--base-url', name: DEFAULT_CLUSTER_NAME }];
  } else if (named.length === 1) {
    chosen = [{ ...named[0]!, draft: mergeCluster(named[0]!.draft, overrides) }];
  } else {
    if (overridden) {
      throw new ConfigError('--cluster', `the config lists ${named.length} clusters; choose the one the flags and FLIGHTREC_* variables apply to with --cluster NAME`);
    }
    chosen = named;
  }
  return {
    clusters: chosen.map((c) => finalizeCluster(c.draft, c.key, c.name, global, input.env)),
    jitterMs: global.jitterMs ?? DEFAULT_JITTER_MS,
    retry: finalizeRetry(global),
    shutdownTimeoutMs: global.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
    keepRawAnswers: global.keepRawAnswers ?? false,
    maxHeldBytes: global.maxHeldBytes ?? DEFAULT_MAX_HELD_BYTES,
    ...(file.thresholds === undefined ? {} : { thresholds: file.thresholds }),
  };
}

function finalizeRetry(global: GlobalDraft): CollectorConfig['retry'] {
  const r = { ...DEFAULT_RETRY, ...defined(global.retry ?? {}) };
  for (const k of ['baseDelayMs', 'exhaustedDelayMs'] as const) {
    if (r[k] > r.maxDelayMs) r.maxDelayMs = Math.max(r.maxDelayMs, r[k]);
  }
  return r;
}

/** Applies defaults to one cluster draft and checks what only the whole can tell. */
export function finalizeCluster(
  draft: ClusterDraft,
  key: string,
  name: string,
  global: GlobalDraft,
  env: ConfigInput['env'],
): ClusterConfig {
  if (draft.baseUrl === undefined) throw new ConfigError(`${key}.baseUrl`, 'required');
  const auth = finalizeAuth(draft.auth, key, name, env);
  const https = draft.baseUrl.startsWith('https:');
  let tls: ClusterConfig['tls'];
  if (draft.tls !== undefined) {
    if (!https) throw new ConfigError(`${key}.tls`, `TLS settings are given but baseUrl ${draft.baseUrl} is not https`);
    if ((draft.tls.certFile === undefined) !== (draft.tls.keyFile === undefined)) {
      throw new ConfigError(`${key}.tls.${draft.tls.certFile === undefined ? 'certFile' : 'keyFile'}`, 'certFile and keyFile must be given together');
    }
    tls = { ...defined(draft.tls), insecureSkipVerify: draft.tls.insecureSkipVerify ?? false };
  }
  const shadowLinks = draft.shadowLinks ?? [];
  return {
    name,
    baseUrl: draft.baseUrl,
    servicePrefix: draft.servicePrefix ?? DEFAULT_SERVICE_PREFIX,
    auth,
    ...(tls === undefined ? {} : { tls }),
    timeoutMs: draft.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...size('maxAnswerBytes', draft.maxAnswerBytes ?? global.maxAnswerBytes),
    ...size('maxParseBytes', draft.maxParseBytes ?? global.maxParseBytes),
    shadowLinks,
    connections: { ...DEFAULT_CONNECTIONS, ...defined(draft.connections ?? {}) },
    icebergTopics: draft.icebergTopics ?? [],
    schedules: { ...DEFAULT_SCHEDULES, ...defined(global.schedules ?? {}), ...defined(draft.schedules ?? {}) },
  };
}

function size<K extends string>(key: K, bytes: number | undefined): Partial<Record<K, number>> {
  const limit: Partial<Record<K, number>> = {};
  if (bytes !== undefined) limit[key] = bytes;
  return limit;
}

/**
 * Checks the authentication of one cluster. `clusterKey` is the cluster's key in the file
 * (`clusters[0]`) or `--base-url` for a cluster given by flags; messages use the words the
 * user wrote: the config keys, the flags, the variables.
 */
function finalizeAuth(draft: AuthDraft | undefined, clusterKey: string, cluster: string, env: ConfigInput['env']): AuthConfig {
  if (draft === undefined) return { kind: 'none' };
  const key = `${clusterKey}.auth`;
  const inFile = clusterKey.startsWith('clusters[');
  const hasToken = draft.tokenEnv !== undefined || draft.tokenFile !== undefined;
  const hasBasic = draft.username !== undefined || draft.passwordEnv !== undefined || draft.passwordFile !== undefined;
  const kind = draft.kind ?? (hasToken ? 'bearer' : hasBasic ? 'basic' : 'none');
  const FLAGS: Readonly<Record<string, string>> = { username: '--username (or FLIGHTREC_USERNAME)', kind: `cluster ${cluster} authentication` };
  const at = (k: string): string => (inFile ? `${key}.${k}` : (FLAGS[k] ?? k));
  const requireSet = (what: 'password' | 'token', name: string, defaulted: boolean): void => {
    const v = env[name];
    if (v !== undefined && v !== '') return;
    const flag = what === 'password' ? '--password-env/--password-file' : '--token-env/--token-file';
    const keys = what === 'password' ? 'passwordEnv/passwordFile' : 'tokenEnv/tokenFile';
    if (defaulted) {
      throw new ConfigError('', `no ${what} for cluster ${cluster}: set ${name}, or ${keys} in the config (${flag} on the command line)`);
    }
    const namedBy = inFile ? `${key}.${what}Env` : what === 'password' ? '--password-env or FLIGHTREC_PASSWORD_ENV' : '--token-env or FLIGHTREC_TOKEN_ENV';
    throw new ConfigError('', `no ${what} for cluster ${cluster}: the variable ${name} (named by ${namedBy}) is not set or empty`);
  };
  if (kind === 'none') {
    if (hasToken || hasBasic) throw new ConfigError(at('kind'), 'is none but credentials are given');
    return { kind: 'none' };
  }
  if (kind === 'basic') {
    if (hasToken) throw new ConfigError(at('kind'), 'basic authentication takes a user name and a password, not a token');
    if (draft.username === undefined) throw new ConfigError(at('username'), 'required for basic authentication');
    if (draft.passwordFile !== undefined) return { kind: 'basic', username: draft.username, passwordFile: draft.passwordFile };
    const passwordEnv = draft.passwordEnv ?? DEFAULT_PASSWORD_ENV;
    requireSet('password', passwordEnv, draft.passwordEnv === undefined);
    return { kind: 'basic', username: draft.username, passwordEnv };
  }
  if (hasBasic) throw new ConfigError(at('kind'), 'bearer authentication takes a token, not a user name or password');
  if (draft.tokenFile !== undefined) return { kind: 'bearer', tokenFile: draft.tokenFile };
  const tokenEnv = draft.tokenEnv ?? DEFAULT_TOKEN_ENV;
  requireSet('token', tokenEnv, draft.tokenEnv === undefined);
  return { kind: 'bearer', tokenEnv };
}
