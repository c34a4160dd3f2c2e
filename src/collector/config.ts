/**
 * The collector's configuration after loading and validation: clusters to record, what to
 * poll on each, schedules, retries and shutdown. Secrets appear only as sources (an
 * environment variable name or a file path), never as values.
 */
import type { OperationName } from '../api/schema/operations.ts';
import { DEFAULT_SERVICE_PREFIX } from '../api/schema/operations.ts';
import { DEFAULT_MAX_HELD_BYTES } from './held-polls.ts';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.ts';

/** How the collector authenticates to a cluster; the secret is named, never given. */
export type AuthConfig =
  | { readonly kind: 'none' }
  | { readonly kind: 'basic'; readonly username: string; readonly passwordEnv?: string; readonly passwordFile?: string }
  | { readonly kind: 'bearer'; readonly tokenEnv?: string; readonly tokenFile?: string };

/** TLS toward an https admin endpoint. */
export interface TlsConfig {
  readonly caFile?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
  readonly insecureSkipVerify: boolean;
}

/** A shadow link to follow, and the shadow topics to read one by one with GetShadowTopic. */
export interface ShadowLinkConfig {
  readonly name: string;
  readonly topics: readonly string[];
}

/** How connections are listed. */
export interface ConnectionsConfig {
  /** sent as `pageSize` of the first call (0 lets the server choose; it applies 1000); fan-out slices ask for more */
  readonly pageSize: number;
  /** a server-dialect filter applied to every call ('' = all) */
  readonly filter: string;
  /** a server-dialect order_by ('' = none) */
  readonly orderBy: string;
  /** fan out by broker and shard when the answer is truncated */
  readonly fanout: boolean;
  /** most calls one round may make (the first one included) */
  readonly maxCalls: number;
}

/** Cron expression per operation (six fields, seconds first, or five without seconds), or null when switched off. */
export type Schedules = Readonly<Record<OperationName, string | null>>;

/** One cluster to record. */
export interface ClusterConfig {
  /** the name under which its history is stored */
  readonly name: string;
  readonly baseUrl: string;
  readonly servicePrefix: string;
  readonly auth: AuthConfig;
  readonly tls?: TlsConfig;
  /** per-call timeout */
  readonly timeoutMs: number;
  /** largest answer body read, in bytes (default: the client's, 128 MiB) */
  readonly maxAnswerBytes?: number;
  /** most memory decoding one answer may take, estimated (default: the client's, 1 GiB or a quarter of the heap) */
  readonly maxParseBytes?: number;
  readonly shadowLinks: readonly ShadowLinkConfig[];
  readonly connections: ConnectionsConfig;
  /** sent as GetIcebergStatus `topicsFilter` ([] = all Iceberg topics) */
  readonly icebergTopics: readonly string[];
  readonly schedules: Schedules;
}

/** Retention the collector applies itself; null keeps that history forever. */
export interface RetentionConfig {
  readonly rawMs: number | null;
  readonly rollupsMs: number | null;
  readonly maxSizeBytes: number | null;
}

/** Which live alerts a receiver gets: a minimum severity, kinds included and excluded (`shadow.*`, `*`). */
export interface AlertFilterConfig {
  readonly minSeverity: 'info' | 'warn' | 'error';
  /** kind patterns; an alert must match one */
  readonly include: readonly string[];
  /** kind patterns; an alert matching one is left out */
  readonly exclude: readonly string[];
}

/** A receiver of live alerts: an Alertmanager (API v2) or a webhook. */
export interface AlertReceiverConfig {
  readonly kind: 'alertmanager' | 'webhook';
  /** an Alertmanager's base URL, or the webhook's URL; never printed (its path or query may be a secret) */
  readonly url: string;
  /** what lines and metrics call it (default: the kind and the URL's host) */
  readonly name: string;
  readonly auth: AuthConfig;
  readonly tls?: TlsConfig;
  /** webhooks: where the HMAC-SHA256 key of the signature header is (an environment variable or a file) */
  readonly secret?: { readonly env?: string; readonly file?: string };
  /** per request */
  readonly timeoutMs: number;
  readonly filter: AlertFilterConfig;
}

/** Live alerts: the receivers (none: the live detectors do not run) and how they are served. */
export interface AlertsConfig {
  readonly receivers: readonly AlertReceiverConfig[];
  /** Alertmanager: how often firing alerts are sent again (and resolved ones, for a while) */
  readonly resendIntervalMs: number;
  /** most deliveries waiting per receiver; past it the oldest are dropped (and counted) */
  readonly queueSize: number;
  /** attempts per delivery, with exponential back-off from baseDelayMs up to maxDelayMs */
  readonly retry: { readonly maxAttempts: number; readonly baseDelayMs: number; readonly maxDelayMs: number };
}

/** The whole collector configuration. */
export interface CollectorConfig {
  readonly clusters: readonly ClusterConfig[];
  /** most random delay added before each scheduled round, in ms */
  readonly jitterMs: number;
  readonly retry: RetryPolicy;
  /** how long in-flight polls may take to finish after a stop request, in ms */
  readonly shutdownTimeoutMs: number;
  /** how long a standby waits for the active collector's lease heartbeat before taking over, in ms (default 30 s) */
  readonly leaseTtlMs?: number;
  /** keep the raw body (compressed) of successful answers too, not only of failed ones */
  readonly keepRawAnswers: boolean;
  /** most memory (estimated) of polls held while the database refuses writes; older ones are dropped past it */
  readonly maxHeldBytes: number;
  readonly retention: RetentionConfig;
  /** address of the collector's own HTTP listener (`listen`), or null for none */
  readonly listen: { readonly host: string; readonly port: number } | null;
  /** how the collector writes its log lines */
  readonly logFormat: 'text' | 'json';
  /** the config file's `thresholds` section, as written: it belongs to the analysis, which checks it */
  readonly thresholds?: unknown;
  /** `database.passwordFile`: the password file of a PostgreSQL --db (--db-password-file wins) */
  readonly databasePasswordFile?: string;
  /** live alerts (`alerts:`, --alertmanager, --webhook); absent or without receivers: off */
  readonly alerts?: AlertsConfig;
}

/** Default schedules: connections, shadow links and topics every 30 s; Iceberg and upgrade every 60 s. */
export const DEFAULT_SCHEDULES: Schedules = {
  ListKafkaConnections: '*/30 * * * * *',
  GetShadowLink: '*/30 * * * * *',
  ListShadowTopics: '*/30 * * * * *',
  GetShadowTopic: '*/30 * * * * *',
  GetIcebergStatus: '0 * * * * *',
  GetUpgradeStatus: '0 * * * * *',
};

/** Default connection listing: server page size, no filter, fan-out on. */
export const DEFAULT_CONNECTIONS: ConnectionsConfig = {
  pageSize: 0,
  filter: '',
  orderBy: '',
  fanout: true,
  maxCalls: 256,
};

/** Default per-call timeout: 10 s. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default jitter: up to 2 s before each scheduled round. */
export const DEFAULT_JITTER_MS = 2_000;
/** Default shutdown deadline: 10 s. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
/** Default cluster name when a single cluster is configured without one. */
export const DEFAULT_CLUSTER_NAME = 'default';
/** Environment variable read for the password when basic auth names no source. */
export const DEFAULT_PASSWORD_ENV = 'FLIGHTREC_PASSWORD';
/** Environment variable read for the token when bearer auth names no source. */
export const DEFAULT_TOKEN_ENV = 'FLIGHTREC_TOKEN';

/** A cluster with every default applied, for a base URL given on the command line. */
export function defaultCluster(name: string, baseUrl: string): ClusterConfig {
  return {
    name,
    baseUrl,
    servicePrefix: DEFAULT_SERVICE_PREFIX,
    auth: { kind: 'none' },
    timeoutMs: DEFAULT_TIMEOUT_MS,
    shadowLinks: [],
    connections: DEFAULT_CONNECTIONS,
    icebergTopics: [],
    schedules: DEFAULT_SCHEDULES,
  };
}

/** The global defaults, without clusters. */
export function defaultCollectorConfig(clusters: readonly ClusterConfig[] = []): CollectorConfig {
  return {
    clusters,
    jitterMs: DEFAULT_JITTER_MS,
    retry: DEFAULT_RETRY,
    shutdownTimeoutMs: DEFAULT_SHUTDOWN_TIMEOUT_MS,
    keepRawAnswers: false,
    maxHeldBytes: DEFAULT_MAX_HELD_BYTES,
    retention: { rawMs: null, rollupsMs: null, maxSizeBytes: null },
    listen: null,
    logFormat: 'text',
  };
}
