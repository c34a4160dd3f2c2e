/**
 * The YAML layer of the configuration: the schema of `flightrec.yaml` (its output is the shape
 * every layer gives: file, environment and flags) and parsing the file, with messages that name
 * the key path (`clusters[0].auth.passwordEnv: must name an environment variable`).
 */
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { OPERATION_NAMES, type OperationName } from '../api/schema/operations.ts';
import { alertsSchema, type AlertsLayer } from './config-alerts.ts';
import { ConfigError } from './config-error.ts';
import {
  baseUrl,
  bool,
  clusterName,
  configErrorOf,
  cronExpr,
  durationMs,
  envName,
  int,
  list,
  linkName,
  listenAddress,
  logFormat,
  MAX_RETENTION_MS,
  orForever,
  nonEmpty,
  servicePrefix,
  shadowLink,
  sizeBytes,
  str,
  strict,
} from './config-pieces.ts';

/** Schedule keys that stand for several operations. */
export const SCHEDULE_GROUPS: Readonly<Record<string, readonly OperationName[]>> = {
  connections: ['ListKafkaConnections'],
  shadow: ['GetShadowLink', 'ListShadowTopics', 'GetShadowTopic'],
  shadowLinks: ['GetShadowLink'],
  shadowTopics: ['ListShadowTopics', 'GetShadowTopic'],
  iceberg: ['GetIcebergStatus'],
  upgrade: ['GetUpgradeStatus'],
};

/** Cron expression (or null: off) per operation, as one layer sets them. */
export type ScheduleLayer = Partial<Record<OperationName, string | null>>;

const scheduleKeys = [...Object.keys(SCHEDULE_GROUPS), ...OPERATION_NAMES];

/** A `schedules` mapping: operation or group names to cron expressions (or off), expanded to operations. */
export const schedulesSchema = strict(Object.fromEntries(scheduleKeys.map((k) => [k, cronExpr.optional()]))).transform(
  (o): ScheduleLayer => {
    const out: ScheduleLayer = {};
    // groups first, so that an operation named on its own wins
    for (const [k, v] of Object.entries(o)) for (const op of SCHEDULE_GROUPS[k] ?? []) if (v !== undefined) out[op] = v;
    for (const op of OPERATION_NAMES) if (o[op] !== undefined) out[op] = o[op];
    return out;
  },
);

const secretInFile = (use: string) =>
  z.never({ error: `secrets are not written in the config; use ${use}` }).optional();

const authSchema = strict({
  kind: z.enum(['none', 'basic', 'bearer'], { error: 'must be none, basic or bearer' }).optional(),
  username: nonEmpty.optional(),
  passwordEnv: envName.optional(),
  passwordFile: nonEmpty.optional(),
  tokenEnv: envName.optional(),
  tokenFile: nonEmpty.optional(),
  password: secretInFile('passwordEnv or passwordFile'),
  token: secretInFile('tokenEnv or tokenFile'),
}).superRefine((a, ctx) => {
  if (a.passwordEnv !== undefined && a.passwordFile !== undefined) {
    ctx.issues.push({
      code: 'custom',
      input: a,
      path: ['passwordFile'],
      message: 'give either passwordEnv or passwordFile, not both',
    });
  }
  if (a.tokenEnv !== undefined && a.tokenFile !== undefined) {
    ctx.issues.push({
      code: 'custom',
      input: a,
      path: ['tokenFile'],
      message: 'give either tokenEnv or tokenFile, not both',
    });
  }
});

/** Authentication as one layer gives it; a later layer replaces the sources it sets. */
export type AuthLayer = Omit<z.output<typeof authSchema>, 'password' | 'token'>;

const tlsSchema = strict({
  caFile: nonEmpty.optional(),
  certFile: nonEmpty.optional(),
  keyFile: nonEmpty.optional(),
  insecureSkipVerify: bool.optional(),
});

/** A shadow link: its name alone, or `{ name, topics }`. */
const shadowLinkEntry = z.unknown().transform((value, ctx) => {
  const r =
    typeof value === 'string'
      ? linkName.transform((name) => ({ name, topics: [] })).safeParse(value)
      : shadowLink.safeParse(value);
  if (r.success) return r.data;
  for (const issue of r.error.issues) {
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
    ctx.issues.push({ code: 'custom', message: issue.message, path, input: value });
  }
  return z.NEVER;
});

const shadowLinks = list(shadowLinkEntry).superRefine((links, ctx) => {
  const names = new Set<string>();
  links.forEach((l, i) => {
    if (names.has(l.name)) {
      ctx.issues.push({
        code: 'custom',
        input: l,
        path: [i, 'name'],
        message: `link ${JSON.stringify(l.name)} is listed twice`,
      });
    }
    names.add(l.name);
  });
});

const connectionsSchema = strict({
  pageSize: int(0, 2_147_483_647).optional(),
  filter: str.max(1024, { error: 'must be at most 1024 characters (the server limit)' }).optional(),
  orderBy: str.optional(),
  fanout: bool.optional(),
  maxCalls: int(1, 10_000).optional(),
});

const clusterSchema = strict({
  name: clusterName.optional(),
  baseUrl: baseUrl.optional(),
  servicePrefix: servicePrefix.optional(),
  timeout: durationMs().optional(),
  maxAnswerSize: sizeBytes().optional(),
  maxDecodeMemory: sizeBytes().optional(),
  auth: authSchema.optional(),
  tls: tlsSchema.optional(),
  shadowLinks: shadowLinks.optional(),
  connections: connectionsSchema.optional(),
  iceberg: strict({ topics: list(nonEmpty).optional() }).optional(),
  schedules: schedulesSchema.optional(),
});

/** One cluster as one layer gives it (values checked and converted: durations in ms, sizes in bytes). */
export type ClusterLayer = Omit<z.output<typeof clusterSchema>, 'auth'> & { auth?: AuthLayer };

const retentionSchema = strict({
  raw: orForever(durationMs({ max: MAX_RETENTION_MS })).optional(),
  rollups: orForever(durationMs({ max: MAX_RETENTION_MS })).optional(),
  maxSize: orForever(sizeBytes()).optional(),
});

/** `database:`: how to reach a PostgreSQL database named by --db (the URL itself stays in --db / FLIGHTREC_DB). */
const databaseSchema = strict({
  passwordFile: nonEmpty.optional(),
  password: secretInFile('passwordFile (a file of mode 0600) or PGPASSWORD'),
});

const globalShape = {
  database: databaseSchema.optional(),
  schedules: schedulesSchema.optional(),
  jitter: durationMs({ allowZero: true }).optional(),
  retry: strict({
    maxAttempts: int(1, 20).optional(),
    baseDelay: durationMs().optional(),
    exhaustedDelay: durationMs().optional(),
    maxDelay: durationMs().optional(),
  }).optional(),
  shutdownTimeout: durationMs().optional(),
  leaseTtl: durationMs().optional(),
  keepRawAnswers: bool.optional(),
  maxHeldMemory: sizeBytes().optional(),
  maxAnswerSize: sizeBytes().optional(),
  maxDecodeMemory: sizeBytes().optional(),
  retention: retentionSchema.optional(),
  listen: listenAddress.optional(),
  logFormat: logFormat.optional(),
};

const globalSchema = strict(globalShape);

/** The global settings as one layer gives them. */
export type GlobalLayer = z.output<typeof globalSchema>;

const fileSchema = strict({
  clusters: list(clusterSchema)
    .superRefine((clusters, ctx) => {
      const seen = new Map<string, number>();
      clusters.forEach((c, i) => {
        const name = c.name ?? '';
        const first = seen.get(name);
        if (first !== undefined) {
          ctx.issues.push({
            code: 'custom',
            input: c,
            path: [i, 'name'],
            message: `${JSON.stringify(name)} is already used by clusters[${first}]`,
          });
        }
        seen.set(name, i);
      });
    })
    .optional(),
  ...globalSchema.shape,
  // belongs to the analysis commands (timeline, trends, summary), which read the same file and check it
  thresholds: z.unknown().optional(),
  alerts: alertsSchema.optional(),
});

/** The file layer: global settings and one layer per cluster, in file order. */
export interface FileLayer {
  readonly global: GlobalLayer;
  readonly clusters: readonly ClusterLayer[];
  /** the `thresholds` section as written (the analysis checks it) */
  readonly thresholds?: unknown;
  /** the `alerts` section (receivers of the live alerts) */
  readonly alerts?: AlertsLayer;
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
    throw new ConfigError('', `${source}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (doc === null || doc === undefined) return { global: {}, clusters: [] };
  const parsed = fileSchema.safeParse(doc);
  if (!parsed.success) throw configErrorOf(parsed.error);
  const { clusters = [], thresholds, alerts, ...global } = parsed.data;
  return {
    global,
    clusters,
    ...(thresholds === undefined ? {} : { thresholds }),
    ...(alerts === undefined ? {} : { alerts }),
  };
}
