/**
 * The YAML layer of the configuration: parsing `flightrec.yaml` and checking every key, with
 * messages that name the key path (`clusters[0].auth.passwordEnv: must name an environment variable`).
 */
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { isOperationName, OPERATION_NAMES, type OperationName } from '../api/schema/operations.ts';
import {
  baseUrl,
  bool,
  ConfigError,
  cronExpr,
  durationMs,
  envName,
  int,
  linkName,
  nonEmpty,
  servicePrefix,
  sizeBytes,
  str,
  topicName,
  type AuthDraft,
  type ClusterDraft,
  type GlobalDraft,
  type TlsDraft,
} from './config-draft.ts';
import { parseRetention } from './config-retention.ts';
import type { ShadowLinkConfig } from './config.ts';

/** The file layer: global settings and one draft per cluster, in file order. */
export interface FileLayer {
  readonly global: GlobalDraft;
  readonly clusters: ClusterDraft[];
  /** the `thresholds` section as written (the analysis checks it) */
  readonly thresholds?: unknown;
}

/** Schedule keys that stand for several operations. */
export const SCHEDULE_GROUPS: Readonly<Record<string, readonly OperationName[]>> = {
  connections: ['ListKafkaConnections'],
  shadow: ['GetShadowLink', 'ListShadowTopics', 'GetShadowTopic'],
  shadowLinks: ['GetShadowLink'],
  shadowTopics: ['ListShadowTopics', 'GetShadowTopic'],
  iceberg: ['GetIcebergStatus'],
  upgrade: ['GetUpgradeStatus'],
};

type Obj = Record<string, unknown>;

function object(key: string, value: unknown, allowed: readonly string[]): Obj {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(key, 'must be a mapping (key: value)');
  }
  for (const k of Object.keys(value)) {
    if (!allowed.includes(k)) {
      throw new ConfigError(key === '' ? k : `${key}.${k}`, `unknown key (expected one of: ${allowed.join(', ')})`);
    }
  }
  return value as Obj;
}

function list(key: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new ConfigError(key, 'must be a list');
  return value;
}

function opt<T>(o: Obj, k: string, prefix: string, check: (key: string, v: unknown) => T): T | undefined {
  const v = o[k];
  return v === undefined ? undefined : check(prefix === '' ? k : `${prefix}.${k}`, v);
}

/** Parses and checks the YAML text of a config file; `source` names the file in messages. */
export function parseConfigFile(text: string, source: string): FileLayer {
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true });
  } catch (err) {
    if (err instanceof YAMLParseError) {
      const pos = err.linePos?.[0];
      const where = pos ? `line ${pos.line}, column ${pos.col}: ` : '';
      throw new ConfigError('', `${source}: ${where}${err.message.split('\n')[0]}`);
    }
    throw new ConfigError('', `${source}: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return { global: {}, clusters: [] };
  // `thresholds` belongs to the analysis commands (timeline, trends, summary), which read the same file
  const top = object('', doc, [
    'clusters',
    'schedules',
    'jitter',
    'retry',
    'shutdownTimeout',
    'keepRawAnswers',
    'maxHeldMemory',
    'maxAnswerSize',
    'maxDecodeMemory',
    'thresholds',
    'retention',
  ]);
  const global: GlobalDraft = {
    jitterMs: opt(top, 'jitter', '', (k, v) => durationMs(k, v, { allowZero: true })),
    maxHeldBytes: opt(top, 'maxHeldMemory', '', (k, v) => sizeBytes(k, v)),
    maxAnswerBytes: opt(top, 'maxAnswerSize', '', (k, v) => sizeBytes(k, v)),
    maxParseBytes: opt(top, 'maxDecodeMemory', '', (k, v) => sizeBytes(k, v)),
    shutdownTimeoutMs: opt(top, 'shutdownTimeout', '', (k, v) => durationMs(k, v)),
    keepRawAnswers: opt(top, 'keepRawAnswers', '', bool),
    retry: opt(top, 'retry', '', parseRetry),
    schedules: opt(top, 'schedules', '', parseSchedules),
    retention: opt(top, 'retention', '', parseRetention),
  };
  const clusters = top.clusters === undefined ? [] : list('clusters', top.clusters).map((c, i) => parseCluster(`clusters[${i}]`, c));
  const seen = new Map<string, number>();
  clusters.forEach((c, i) => {
    const name = c.name ?? '';
    const first = seen.get(name);
    if (first !== undefined) {
      throw new ConfigError(`clusters[${i}].name`, `${JSON.stringify(name)} is already used by clusters[${first}]`);
    }
    seen.set(name, i);
  });
  return { global, clusters, ...(top.thresholds === undefined ? {} : { thresholds: top.thresholds }) };
}

function parseRetry(key: string, value: unknown): GlobalDraft['retry'] {
  const o = object(key, value, ['maxAttempts', 'baseDelay', 'exhaustedDelay', 'maxDelay']);
  return {
    maxAttempts: opt(o, 'maxAttempts', key, (k, v) => int(k, v, 1, 20)),
    baseDelayMs: opt(o, 'baseDelay', key, (k, v) => durationMs(k, v)),
    exhaustedDelayMs: opt(o, 'exhaustedDelay', key, (k, v) => durationMs(k, v)),
    maxDelayMs: opt(o, 'maxDelay', key, (k, v) => durationMs(k, v)),
  };
}

/** Checks a `schedules` mapping: operation names or group names to cron expressions (or off). */
export function parseSchedules(key: string, value: unknown): Partial<Record<OperationName, string | null>> {
  const o = object(key, value, [...Object.keys(SCHEDULE_GROUPS), ...OPERATION_NAMES]);
  const out: Partial<Record<OperationName, string | null>> = {};
  // groups first, so that an operation named on its own wins
  for (const [k, v] of Object.entries(o)) {
    const ops = SCHEDULE_GROUPS[k];
    if (ops !== undefined) for (const op of ops) out[op] = cronExpr(`${key}.${k}`, v);
  }
  for (const [k, v] of Object.entries(o)) if (isOperationName(k)) out[k] = cronExpr(`${key}.${k}`, v);
  return out;
}

const CLUSTER_KEYS = [
  'name',
  'baseUrl',
  'servicePrefix',
  'timeout',
  'maxAnswerSize',
  'maxDecodeMemory',
  'auth',
  'tls',
  'shadowLinks',
  'connections',
  'iceberg',
  'schedules',
] as const;

function parseCluster(key: string, value: unknown): ClusterDraft {
  const o = object(key, value, CLUSTER_KEYS);
  return {
    name: opt(o, 'name', key, clusterName),
    baseUrl: opt(o, 'baseUrl', key, baseUrl),
    servicePrefix: opt(o, 'servicePrefix', key, servicePrefix),
    timeoutMs: opt(o, 'timeout', key, (k, v) => durationMs(k, v)),
    maxAnswerBytes: opt(o, 'maxAnswerSize', key, (k, v) => sizeBytes(k, v)),
    maxParseBytes: opt(o, 'maxDecodeMemory', key, (k, v) => sizeBytes(k, v)),
    auth: opt(o, 'auth', key, parseAuth),
    tls: opt(o, 'tls', key, parseTls),
    shadowLinks: opt(o, 'shadowLinks', key, parseLinks),
    connections: opt(o, 'connections', key, parseConnections),
    icebergTopics: opt(o, 'iceberg', key, (k, v) => {
      const ice = object(k, v, ['topics']);
      return opt(ice, 'topics', k, (kk, vv) => list(kk, vv).map((t, i) => nonEmpty(`${kk}[${i}]`, t))) ?? [];
    }),
    schedules: opt(o, 'schedules', key, parseSchedules),
  };
}

/** Checks a cluster name: letters, digits, `.`, `_` and `-`. */
export function clusterName(key: string, value: unknown): string {
  const text = nonEmpty(key, value);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(text)) throw new ConfigError(key, 'must use only letters, digits, ".", "_" and "-"');
  return text;
}

function parseAuth(key: string, value: unknown): AuthDraft {
  const o = object(key, value, ['kind', 'username', 'passwordEnv', 'passwordFile', 'tokenEnv', 'tokenFile', 'password', 'token']);
  if (o.password !== undefined) {
    throw new ConfigError(`${key}.password`, 'secrets are not written in the config; use passwordEnv or passwordFile');
  }
  if (o.token !== undefined) throw new ConfigError(`${key}.token`, 'secrets are not written in the config; use tokenEnv or tokenFile');
  const kind = opt(o, 'kind', key, (k, v) => {
    if (v !== 'none' && v !== 'basic' && v !== 'bearer') throw new ConfigError(k, 'must be none, basic or bearer');
    return v;
  });
  const auth: AuthDraft = {
    kind,
    username: opt(o, 'username', key, nonEmpty),
    passwordEnv: opt(o, 'passwordEnv', key, envName),
    passwordFile: opt(o, 'passwordFile', key, nonEmpty),
    tokenEnv: opt(o, 'tokenEnv', key, envName),
    tokenFile: opt(o, 'tokenFile', key, nonEmpty),
  };
  if (auth.passwordEnv !== undefined && auth.passwordFile !== undefined) {
    throw new ConfigError(`${key}.passwordFile`, 'give either passwordEnv or passwordFile, not both');
  }
  if (auth.tokenEnv !== undefined && auth.tokenFile !== undefined) {
    throw new ConfigError(`${key}.tokenFile`, 'give either tokenEnv or tokenFile, not both');
  }
  return auth;
}

function parseTls(key: string, value: unknown): TlsDraft {
  const o = object(key, value, ['caFile', 'certFile', 'keyFile', 'insecureSkipVerify']);
  return {
    caFile: opt(o, 'caFile', key, nonEmpty),
    certFile: opt(o, 'certFile', key, nonEmpty),
    keyFile: opt(o, 'keyFile', key, nonEmpty),
    insecureSkipVerify: opt(o, 'insecureSkipVerify', key, bool),
  };
}

function parseLinks(key: string, value: unknown): ShadowLinkConfig[] {
  const links = list(key, value).map((item, i): ShadowLinkConfig => {
    const k = `${key}[${i}]`;
    if (typeof item === 'string') return { name: linkName(k, item), topics: [] };
    const o = object(k, item, ['name', 'topics']);
    const name = linkName(`${k}.name`, o.name);
    const topics = opt(o, 'topics', k, (kk, v) => list(kk, v).map((t, j) => topicName(`${kk}[${j}]`, t))) ?? [];
    return { name, topics };
  });
  const names = new Set<string>();
  links.forEach((l, i) => {
    if (names.has(l.name)) throw new ConfigError(`${key}[${i}].name`, `link ${JSON.stringify(l.name)} is listed twice`);
    names.add(l.name);
  });
  return links;
}

function parseConnections(key: string, value: unknown): ClusterDraft['connections'] {
  const o = object(key, value, ['pageSize', 'filter', 'orderBy', 'fanout', 'maxCalls']);
  return {
    pageSize: opt(o, 'pageSize', key, (k, v) => int(k, v, 0, 2_147_483_647)),
    filter: opt(o, 'filter', key, (k, v) => {
      const s = str(k, v);
      if (s.length > 1024) throw new ConfigError(k, 'must be at most 1024 characters (the server limit)');
      return s;
    }),
    orderBy: opt(o, 'orderBy', key, str),
    fanout: opt(o, 'fanout', key, bool),
    maxCalls: opt(o, 'maxCalls', key, (k, v) => int(k, v, 1, 10_000)),
  };
}
