/**
 * Loading the collector configuration: YAML file, then environment, then flags (precedence
 * flags > env > file > defaults), validated with messages that name the key, flag or variable.
 * This module loads zod: the command line imports it when a command runs, not to list its help.
 */
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
  type RetentionConfig,
} from './config.ts';
import { DEFAULT_SERVICE_PREFIX } from '../api/schema/operations.ts';
import { finalizeAlerts, type AlertFlags } from './config-alerts.ts';
import { ConfigError } from './config-error.ts';
import { parseConfigFile, type AuthLayer, type ClusterLayer, type GlobalLayer } from './config-file.ts';
import {
  defined,
  envLayer,
  flagsLayer,
  mergeCluster,
  mergeGlobal,
  type CollectFlags,
  type Layer,
} from './config-layers.ts';
import { clusterName, configErrorOf, formatMs } from './config-pieces.ts';
import { DEFAULT_MAX_HELD_BYTES } from './held-polls.ts';
import { DEFAULT_RETRY } from './retry.ts';

export type { CollectFlags } from './config-layers.ts';

/** Everything the configuration is built from. */
export interface ConfigInput {
  /** the config file's text and path, when one is used */
  readonly file?: { readonly text: string; readonly path: string };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly flags: CollectFlags;
  /** use only the global settings of the file (the clusters come from flags, e.g. --simulate) */
  readonly ignoreFileClusters?: boolean;
  /** --alertmanager, --webhook and the webhook secret flags */
  readonly alertFlags?: AlertFlags;
}

function hasAny(o: object): boolean {
  return Object.values(o).some((v) => v !== undefined);
}

/** Loads, merges and validates the whole configuration. Throws ConfigError. */
export function loadCollectorConfig(input: ConfigInput): CollectorConfig {
  const file =
    input.file === undefined ? { global: {}, clusters: [] } : parseConfigFile(input.file.text, input.file.path);
  const fileClusters = input.ignoreFileClusters === true ? [] : file.clusters;
  const env = envLayer(input.env);
  const flags = flagsLayer(input.flags);
  const global = mergeGlobal(mergeGlobal(file.global, env.global), flags.global);
  const overrides = mergeCluster(env.cluster, flags.cluster);
  const overridden = [env.cluster, flags.cluster].some(hasAny);
  const wanted = input.flags.cluster ?? input.env.FLIGHTREC_CLUSTER;
  if (wanted !== undefined && wanted !== '') {
    const checked = clusterName.safeParse(wanted);
    if (!checked.success)
      throw configErrorOf(checked.error, () => (input.flags.cluster !== undefined ? '--cluster' : 'FLIGHTREC_CLUSTER'));
  }

  if (fileClusters.length > 1) {
    fileClusters.forEach((c, i) => {
      if (c.name === undefined)
        throw new ConfigError(`clusters[${i}].name`, 'required when several clusters are configured');
    });
  }
  const named = fileClusters.map((c, i) => ({ layer: c, key: `clusters[${i}]`, name: c.name ?? DEFAULT_CLUSTER_NAME }));
  let chosen: { layer: ClusterLayer; key: string; name: string }[];
  if (wanted !== undefined && wanted !== '') {
    const hit = named.find((c) => c.name === wanted);
    if (hit !== undefined) chosen = [{ ...hit, layer: mergeCluster(hit.layer, overrides) }];
    else if (overrides.baseUrl !== undefined) chosen = [{ layer: overrides, key: '--base-url', name: wanted }];
    else {
      const known = named.map((c) => c.name).join(', ');
      throw new ConfigError(
        '--cluster',
        `no cluster named ${JSON.stringify(wanted)} in the config${known ? ` (known: ${known})` : ''} and no --base-url given`,
      );
    }
  } else if (named.length === 0) {
    if (overrides.baseUrl === undefined) {
      throw new ConfigError(
        '',
        'no cluster to record: give --base-url URL, set FLIGHTREC_BASE_URL, or list clusters in a config file (--config)',
      );
    }
    chosen = [{ layer: overrides, key: '--base-url', name: DEFAULT_CLUSTER_NAME }];
  } else if (named.length === 1) {
    chosen = [{ ...named[0]!, layer: mergeCluster(named[0]!.layer, overrides) }];
  } else {
    if (overridden) {
      throw new ConfigError(
        '--cluster',
        `the config lists ${named.length} clusters; choose the one the flags and FLIGHTREC_* variables apply to with --cluster NAME`,
      );
    }
    chosen = named;
  }
  const alerts = finalizeAlerts(file.alerts, input.alertFlags ?? {});
  return {
    clusters: chosen.map((c) => finalizeCluster(c.layer, c.key, c.name, global, input.env)),
    ...(global.database?.passwordFile === undefined ? {} : { databasePasswordFile: global.database.passwordFile }),
    jitterMs: global.jitter ?? DEFAULT_JITTER_MS,
    retry: finalizeRetry(global),
    shutdownTimeoutMs: global.shutdownTimeout ?? DEFAULT_SHUTDOWN_TIMEOUT_MS,
    ...(global.leaseTtl === undefined ? {} : { leaseTtlMs: global.leaseTtl }),
    keepRawAnswers: global.keepRawAnswers ?? false,
    maxHeldBytes: global.maxHeldMemory ?? DEFAULT_MAX_HELD_BYTES,
    retention: finalizeRetention(global, [flags, env]),
    listen: global.listen ?? null,
    logFormat: global.logFormat ?? 'text',
    ...(file.thresholds === undefined ? {} : { thresholds: file.thresholds }),
    ...(alerts === undefined ? {} : { alerts }),
  };
}

function finalizeRetry(global: GlobalLayer): CollectorConfig['retry'] {
  const set = global.retry ?? {};
  const r = {
    maxAttempts: set.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
    baseDelayMs: set.baseDelay ?? DEFAULT_RETRY.baseDelayMs,
    exhaustedDelayMs: set.exhaustedDelay ?? DEFAULT_RETRY.exhaustedDelayMs,
    maxDelayMs: set.maxDelay ?? DEFAULT_RETRY.maxDelayMs,
  };
  r.maxDelayMs = Math.max(r.maxDelayMs, r.baseDelayMs, r.exhaustedDelayMs);
  return r;
}

/**
 * Retention, checked as a whole: rolled-up history must be kept at least as long as raw
 * history. The message names each key as the user set it (flag, variable or file key).
 */
function finalizeRetention(global: GlobalLayer, over: readonly [flags: Layer, env: Layer]): RetentionConfig {
  const { raw, rollups, maxSize } = global.retention ?? {};
  if (raw !== undefined && raw !== null && rollups !== undefined && rollups !== null && rollups < raw) {
    const [flags, env] = over;
    const keyOf = (k: 'raw' | 'rollups'): string =>
      flags.global.retention?.[k] !== undefined
        ? `--retention-${k}`
        : env.global.retention?.[k] !== undefined
          ? `FLIGHTREC_RETENTION_${k.toUpperCase()}`
          : `retention.${k}`;
    throw new ConfigError(
      keyOf('rollups'),
      `${formatMs(rollups)} is shorter than ${keyOf('raw')} (${formatMs(raw)}): rollups must be kept at least as long as raw history`,
    );
  }
  return { rawMs: raw ?? null, rollupsMs: rollups ?? null, maxSizeBytes: maxSize ?? null };
}

/** Applies defaults to one cluster layer and checks what only the whole can tell. */
function finalizeCluster(
  layer: ClusterLayer,
  key: string,
  name: string,
  global: GlobalLayer,
  env: ConfigInput['env'],
): ClusterConfig {
  if (layer.baseUrl === undefined) throw new ConfigError(`${key}.baseUrl`, 'required');
  const auth = finalizeAuth(layer.auth, key, name, env);
  const https = layer.baseUrl.startsWith('https:');
  let tls: ClusterConfig['tls'];
  if (layer.tls !== undefined) {
    if (!https) throw new ConfigError(`${key}.tls`, `TLS settings are given but baseUrl ${layer.baseUrl} is not https`);
    if ((layer.tls.certFile === undefined) !== (layer.tls.keyFile === undefined)) {
      throw new ConfigError(
        `${key}.tls.${layer.tls.certFile === undefined ? 'certFile' : 'keyFile'}`,
        'certFile and keyFile must be given together',
      );
    }
    tls = { ...layer.tls, insecureSkipVerify: layer.tls.insecureSkipVerify ?? false };
  }
  const maxAnswerBytes = layer.maxAnswerSize ?? global.maxAnswerSize;
  const maxParseBytes = layer.maxDecodeMemory ?? global.maxDecodeMemory;
  return {
    name,
    baseUrl: layer.baseUrl,
    servicePrefix: layer.servicePrefix ?? DEFAULT_SERVICE_PREFIX,
    auth,
    ...(tls === undefined ? {} : { tls }),
    timeoutMs: layer.timeout ?? DEFAULT_TIMEOUT_MS,
    ...(maxAnswerBytes === undefined ? {} : { maxAnswerBytes }),
    ...(maxParseBytes === undefined ? {} : { maxParseBytes }),
    shadowLinks: layer.shadowLinks ?? [],
    connections: { ...DEFAULT_CONNECTIONS, ...defined(layer.connections ?? {}) },
    icebergTopics: layer.iceberg?.topics ?? [],
    schedules: { ...DEFAULT_SCHEDULES, ...global.schedules, ...layer.schedules },
  };
}

/**
 * Checks the authentication of one cluster. `clusterKey` is the cluster's key in the file
 * (`clusters[0]`) or `--base-url` for a cluster given by flags; messages use the words the
 * user wrote: the config keys, the flags, the variables.
 */
function finalizeAuth(
  layer: AuthLayer | undefined,
  clusterKey: string,
  cluster: string,
  env: ConfigInput['env'],
): AuthConfig {
  if (layer === undefined) return { kind: 'none' };
  const key = `${clusterKey}.auth`;
  const inFile = clusterKey.startsWith('clusters[');
  const hasToken = layer.tokenEnv !== undefined || layer.tokenFile !== undefined;
  const hasBasic = layer.username !== undefined || layer.passwordEnv !== undefined || layer.passwordFile !== undefined;
  const kind = layer.kind ?? (hasToken ? 'bearer' : hasBasic ? 'basic' : 'none');
  const FLAGS: Readonly<Record<string, string>> = {
    username: '--username (or FLIGHTREC_USERNAME)',
    kind: `cluster ${cluster} authentication`,
  };
  const at = (k: string): string => (inFile ? `${key}.${k}` : (FLAGS[k] ?? k));
  const requireSet = (what: 'password' | 'token', name: string, defaulted: boolean): void => {
    const v = env[name];
    if (v !== undefined && v !== '') return;
    const flag = what === 'password' ? '--password-env/--password-file' : '--token-env/--token-file';
    const keys = what === 'password' ? 'passwordEnv/passwordFile' : 'tokenEnv/tokenFile';
    if (defaulted) {
      throw new ConfigError(
        '',
        `no ${what} for cluster ${cluster}: set ${name}, or ${keys} in the config (${flag} on the command line)`,
      );
    }
    const namedBy = inFile
      ? `${key}.${what}Env`
      : what === 'password'
        ? '--password-env or FLIGHTREC_PASSWORD_ENV'
        : '--token-env or FLIGHTREC_TOKEN_ENV';
    throw new ConfigError(
      '',
      `no ${what} for cluster ${cluster}: the variable ${name} (named by ${namedBy}) is not set or empty`,
    );
  };
  if (kind === 'none') {
    if (hasToken || hasBasic) throw new ConfigError(at('kind'), 'is none but credentials are given');
    return { kind: 'none' };
  }
  if (kind === 'basic') {
    if (hasToken)
      throw new ConfigError(at('kind'), 'basic authentication takes a user name and a password, not a token');
    if (layer.username === undefined) throw new ConfigError(at('username'), 'required for basic authentication');
    if (layer.passwordFile !== undefined)
      return { kind: 'basic', username: layer.username, passwordFile: layer.passwordFile };
    const passwordEnv = layer.passwordEnv ?? DEFAULT_PASSWORD_ENV;
    requireSet('password', passwordEnv, layer.passwordEnv === undefined);
    return { kind: 'basic', username: layer.username, passwordEnv };
  }
  if (hasBasic) throw new ConfigError(at('kind'), 'bearer authentication takes a token, not a user name or password');
  if (layer.tokenFile !== undefined) return { kind: 'bearer', tokenFile: layer.tokenFile };
  const tokenEnv = layer.tokenEnv ?? DEFAULT_TOKEN_ENV;
  requireSet('token', tokenEnv, layer.tokenEnv === undefined);
  return { kind: 'bearer', tokenEnv };
}
