/**
 * The environment and flag layers of the configuration: their schemas (keyed by the variable
 * or flag the user sets, so a message names it), their mapping onto the file's keys, and the
 * merge of a higher-precedence layer over a lower one.
 */
import { z } from 'zod';
import type { ClusterLayer, GlobalLayer, AuthLayer } from './config-file.ts';
import { schedulesSchema, type ScheduleLayer } from './config-file.ts';
import {
  baseUrl,
  bool,
  configErrorOf,
  durationMs,
  envName,
  int,
  linkSpec,
  listenAddress,
  logFormat,
  MAX_RETENTION_MS,
  orForever,
  nonEmpty,
  servicePrefix,
  sizeBytes,
  str,
} from './config-pieces.ts';

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
  /** a duration, e.g. 14d (--retention-raw) */
  readonly retentionRaw?: string;
  /** a duration, e.g. 400d (--retention-rollups) */
  readonly retentionRollups?: string;
  /** a size, e.g. 20GiB (--retention-max-size) */
  readonly retentionMaxSize?: string;
  /** `HOST:PORT` or `PORT` (--listen) */
  readonly listen?: string;
  /** `text` or `json` (--log-format) */
  readonly logFormat?: string;
}

/** What one layer gives: the selected cluster's settings and the global ones. */
export interface Layer {
  readonly cluster: ClusterLayer;
  readonly global: GlobalLayer;
}

/** `LINK:TOPIC,TOPIC LINK` (entries separated by white space or `;`). */
const linkList = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(/\s*;\s*|\s+/).filter((s) => s !== '') : v),
  z.array(linkSpec),
);

const retentionMs = orForever(durationMs({ max: MAX_RETENTION_MS }));
const retentionSize = orForever(sizeBytes());

const envSchema = z.object({
  FLIGHTREC_BASE_URL: baseUrl.optional(),
  FLIGHTREC_SERVICE_PREFIX: servicePrefix.optional(),
  FLIGHTREC_TIMEOUT: durationMs().optional(),
  FLIGHTREC_MAX_ANSWER_SIZE: sizeBytes().optional(),
  FLIGHTREC_MAX_DECODE_MEMORY: sizeBytes().optional(),
  FLIGHTREC_USERNAME: nonEmpty.optional(),
  FLIGHTREC_PASSWORD_ENV: envName.optional(),
  FLIGHTREC_PASSWORD_FILE: nonEmpty.optional(),
  FLIGHTREC_TOKEN_ENV: envName.optional(),
  FLIGHTREC_TOKEN_FILE: nonEmpty.optional(),
  FLIGHTREC_CA_FILE: str.optional(),
  FLIGHTREC_CERT_FILE: str.optional(),
  FLIGHTREC_KEY_FILE: str.optional(),
  FLIGHTREC_INSECURE_SKIP_VERIFY: bool.optional(),
  FLIGHTREC_SHADOW_LINKS: linkList.optional(),
  FLIGHTREC_JITTER: durationMs({ allowZero: true }).optional(),
  FLIGHTREC_SHUTDOWN_TIMEOUT: durationMs().optional(),
  FLIGHTREC_KEEP_RAW_ANSWERS: bool.optional(),
  FLIGHTREC_MAX_HELD_MEMORY: sizeBytes().optional(),
  FLIGHTREC_RETENTION_RAW: retentionMs.optional(),
  FLIGHTREC_RETENTION_ROLLUPS: retentionMs.optional(),
  FLIGHTREC_RETENTION_MAX_SIZE: retentionSize.optional(),
  FLIGHTREC_LISTEN: listenAddress.optional(),
  FLIGHTREC_LOG_FORMAT: logFormat.optional(),
});

/** `OPERATION=CRON` or `GROUP=CRON` (one `--schedule`). */
const scheduleItem = z.string().transform((item, ctx): ScheduleLayer => {
  const eq = item.indexOf('=');
  if (eq <= 0) {
    ctx.issues.push({
      code: 'custom',
      input: item,
      message: `${JSON.stringify(item)}: expected OPERATION=CRON, e.g. connections="*/10 * * * * *"`,
    });
    return z.NEVER;
  }
  const r = schedulesSchema.safeParse({ [item.slice(0, eq).trim()]: item.slice(eq + 1) });
  if (r.success) return r.data;
  ctx.issues.push({ code: 'custom', input: item, message: configErrorOf(r.error).message });
  return z.NEVER;
});

const flagsSchema = z
  .object({
    baseUrl: baseUrl.optional(),
    servicePrefix: servicePrefix.optional(),
    timeout: durationMs().optional(),
    username: nonEmpty.optional(),
    passwordEnv: envName.optional(),
    passwordFile: nonEmpty.optional(),
    tokenEnv: envName.optional(),
    tokenFile: nonEmpty.optional(),
    caFile: str.optional(),
    certFile: str.optional(),
    keyFile: str.optional(),
    insecureSkipVerify: z.boolean().optional(),
    link: z.array(linkSpec).optional(),
    pageSize: int(0, 2_147_483_647).optional(),
    jitter: durationMs({ allowZero: true }).optional(),
    shutdownTimeout: durationMs().optional(),
    schedule: z.array(scheduleItem).optional(),
    keepRawAnswers: z.boolean().optional(),
    maxAnswerSize: sizeBytes().optional(),
    maxHeldMemory: sizeBytes().optional(),
    retentionRaw: retentionMs.optional(),
    retentionRollups: retentionMs.optional(),
    retentionMaxSize: retentionSize.optional(),
    listen: listenAddress.optional(),
    logFormat: logFormat.optional(),
  })
  .superRefine((f, ctx) => {
    if (f.passwordEnv !== undefined && f.passwordFile !== undefined) {
      ctx.issues.push({
        code: 'custom',
        input: f,
        path: ['passwordFile'],
        message: 'give either --password-env or --password-file, not both',
      });
    }
    if (f.tokenEnv !== undefined && f.tokenFile !== undefined) {
      ctx.issues.push({
        code: 'custom',
        input: f,
        path: ['tokenFile'],
        message: 'give either --token-env or --token-file, not both',
      });
    }
  });

/** The flag a flags-object property is typed as: `maxAnswerSize` is `--max-answer-size`. */
export function flagName(property: string): string {
  return `--${property.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** The environment layer: `FLIGHTREC_*` variables (empty means unset) for the selected cluster and the globals. */
export function envLayer(env: Readonly<Record<string, string | undefined>>): Layer {
  const set = Object.fromEntries(
    Object.entries(env).filter(([k, v]) => k.startsWith('FLIGHTREC_') && v !== undefined && v !== ''),
  );
  const r = envSchema.safeParse(set);
  if (!r.success) throw configErrorOf(r.error, (path) => String(path[0]));
  const e = r.data;
  const auth = defined({
    username: e.FLIGHTREC_USERNAME,
    passwordEnv: e.FLIGHTREC_PASSWORD_ENV,
    passwordFile: e.FLIGHTREC_PASSWORD_FILE,
    tokenEnv: e.FLIGHTREC_TOKEN_ENV,
    tokenFile: e.FLIGHTREC_TOKEN_FILE,
  });
  const tls = defined({
    caFile: e.FLIGHTREC_CA_FILE,
    certFile: e.FLIGHTREC_CERT_FILE,
    keyFile: e.FLIGHTREC_KEY_FILE,
    insecureSkipVerify: e.FLIGHTREC_INSECURE_SKIP_VERIFY,
  });
  const retention = defined({
    raw: e.FLIGHTREC_RETENTION_RAW,
    rollups: e.FLIGHTREC_RETENTION_ROLLUPS,
    maxSize: e.FLIGHTREC_RETENTION_MAX_SIZE,
  });
  return {
    cluster: defined({
      baseUrl: e.FLIGHTREC_BASE_URL,
      servicePrefix: e.FLIGHTREC_SERVICE_PREFIX,
      timeout: e.FLIGHTREC_TIMEOUT,
      maxAnswerSize: e.FLIGHTREC_MAX_ANSWER_SIZE,
      maxDecodeMemory: e.FLIGHTREC_MAX_DECODE_MEMORY,
      auth: orNone(auth),
      tls: orNone(tls),
      shadowLinks: e.FLIGHTREC_SHADOW_LINKS,
    }),
    global: defined({
      jitter: e.FLIGHTREC_JITTER,
      shutdownTimeout: e.FLIGHTREC_SHUTDOWN_TIMEOUT,
      keepRawAnswers: e.FLIGHTREC_KEEP_RAW_ANSWERS,
      maxHeldMemory: e.FLIGHTREC_MAX_HELD_MEMORY,
      retention: orNone(retention),
      listen: e.FLIGHTREC_LISTEN,
      logFormat: e.FLIGHTREC_LOG_FORMAT,
    }),
  };
}

/** The flags layer; a message names the flag (`--timeout`). */
export function flagsLayer(flags: CollectFlags): Layer {
  const r = flagsSchema.safeParse(flags);
  if (!r.success) throw configErrorOf(r.error, (path) => flagName(String(path[0])));
  const f = r.data;
  const auth = defined({
    username: f.username,
    passwordEnv: f.passwordEnv,
    passwordFile: f.passwordFile,
    tokenEnv: f.tokenEnv,
    tokenFile: f.tokenFile,
  });
  const tls = defined({
    caFile: f.caFile,
    certFile: f.certFile,
    keyFile: f.keyFile,
    insecureSkipVerify: f.insecureSkipVerify,
  });
  const retention = defined({ raw: f.retentionRaw, rollups: f.retentionRollups, maxSize: f.retentionMaxSize });
  const schedules = f.schedule === undefined || f.schedule.length === 0 ? undefined : Object.assign({}, ...f.schedule);
  return {
    cluster: defined({
      baseUrl: f.baseUrl,
      servicePrefix: f.servicePrefix,
      timeout: f.timeout,
      maxAnswerSize: f.maxAnswerSize,
      auth: orNone(auth),
      tls: orNone(tls),
      shadowLinks: f.link === undefined || f.link.length === 0 ? undefined : f.link,
      connections: f.pageSize === undefined ? undefined : { pageSize: f.pageSize },
      schedules,
    }),
    global: defined({
      jitter: f.jitter,
      shutdownTimeout: f.shutdownTimeout,
      keepRawAnswers: f.keepRawAnswers,
      maxHeldMemory: f.maxHeldMemory,
      retention: orNone(retention),
      listen: f.listen,
      logFormat: f.logFormat,
    }),
  };
}

/** Merges a higher-precedence cluster layer over a lower one. */
export function mergeCluster(low: ClusterLayer, high: ClusterLayer): ClusterLayer {
  return defined({
    ...low,
    ...high,
    auth: mergeAuth(low.auth, high.auth),
    tls: low.tls === undefined && high.tls === undefined ? undefined : { ...low.tls, ...high.tls },
    connections: { ...low.connections, ...high.connections },
    schedules: { ...low.schedules, ...high.schedules },
  });
}

/** Merges a higher-precedence global layer over a lower one. */
export function mergeGlobal(low: GlobalLayer, high: GlobalLayer): GlobalLayer {
  return defined({
    ...low,
    ...high,
    retry: { ...low.retry, ...high.retry },
    retention: { ...low.retention, ...high.retention },
    schedules: { ...low.schedules, ...high.schedules },
  });
}

/** A higher layer that names a password (or token) source replaces both sources of the lower one. */
function mergeAuth(low: AuthLayer | undefined, high: AuthLayer | undefined): AuthLayer | undefined {
  if (high === undefined) return low;
  if (low === undefined) return high;
  const { passwordEnv, passwordFile, tokenEnv, tokenFile, ...rest } = low;
  const keepPassword = high.passwordEnv === undefined && high.passwordFile === undefined;
  const keepToken = high.tokenEnv === undefined && high.tokenFile === undefined;
  return {
    ...rest,
    ...(keepPassword ? defined({ passwordEnv, passwordFile }) : {}),
    ...(keepToken ? defined({ tokenEnv, tokenFile }) : {}),
    ...high,
  };
}

/** A copy of `o` without its undefined properties (so that a spread never hides a lower layer's value). */
export function defined<T extends object>(o: T): T {
  const out = { ...o };
  for (const [k, v] of Object.entries(out)) if (v === undefined) Reflect.deleteProperty(out, k);
  return out;
}

/** `o`, or undefined when it has no property (a section the layer does not set). */
function orNone<T extends object>(o: T): T | undefined {
  return Object.keys(o).length === 0 ? undefined : o;
}
