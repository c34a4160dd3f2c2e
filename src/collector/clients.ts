/**
 * Building one Connect client per configured cluster: secrets are loaded here, from the
 * environment variable or file the config names, and go straight into the client.
 */
import { ClientConfigError, ConnectClient, loadSecret, type ClientAuth, type Redactor } from '../api/client/index.ts';
import { ConfigError } from './config-error.ts';
import type { AuthConfig, ClusterConfig } from './config.ts';
import type { AdminCaller } from './poller.ts';
import { redactorFor } from './scrub.ts';

/** Builds a client for a cluster (the default makes a ConnectClient). */
export type ClientFactory = (cluster: ClusterConfig, auth: ClientAuth | undefined) => AdminCaller;

/** The default factory: a ConnectClient with the cluster's base URL, prefix, TLS and timeout. */
export const connectClientFactory: ClientFactory = (cluster, auth) =>
  new ConnectClient({
    baseUrl: cluster.baseUrl,
    servicePrefix: cluster.servicePrefix,
    timeoutMs: cluster.timeoutMs,
    ...(cluster.maxAnswerBytes === undefined ? {} : { maxAnswerBytes: cluster.maxAnswerBytes }),
    ...(cluster.maxParseBytes === undefined ? {} : { maxParseBytes: cluster.maxParseBytes }),
    ...(auth === undefined ? {} : { auth }),
    ...(cluster.tls === undefined ? {} : { tls: cluster.tls }),
  });

/**
 * Loads the credentials a cluster's auth config names. Errors are ConfigErrors naming the
 * config key and the variable or file, never the value; warnings (a file readable by others)
 * go to `warn`.
 */
export function resolveAuth(
  auth: AuthConfig,
  key: string,
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
): ClientAuth | undefined {
  try {
    switch (auth.kind) {
      case 'none':
        return undefined;
      case 'basic': {
        const source = auth.passwordFile !== undefined ? { file: auth.passwordFile } : { env: auth.passwordEnv! };
        const loaded = loadSecret(source, env);
        loaded.warnings.forEach(warn);
        return { kind: 'basic', username: auth.username, password: loaded.secret };
      }
      case 'bearer': {
        const source = auth.tokenFile !== undefined ? { file: auth.tokenFile } : { env: auth.tokenEnv! };
        const loaded = loadSecret(source, env);
        loaded.warnings.forEach(warn);
        return { kind: 'bearer', token: loaded.secret };
      }
    }
  } catch (err) {
    if (err instanceof ClientConfigError) throw new ConfigError(`${key}.auth`, err.message);
    throw err;
  }
}

/** A cluster's client and the redactor of its credentials. */
export interface PreparedCluster {
  readonly client: AdminCaller;
  readonly redactor: Redactor;
}

/** Creates the client of a cluster; a client option that cannot be used becomes a ConfigError. */
export function createClusterClient(
  cluster: ClusterConfig,
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
  factory: ClientFactory = connectClientFactory,
): AdminCaller {
  return prepareCluster(cluster, env, warn, factory).client;
}

/**
 * Loads a cluster's credentials and creates its client (what can fail in a configuration
 * before anything is opened or called): a ConfigError names what is wrong.
 */
export function prepareCluster(
  cluster: ClusterConfig,
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
  factory: ClientFactory = connectClientFactory,
): PreparedCluster {
  const key = `cluster ${cluster.name}`;
  const auth = resolveAuth(cluster.auth, key, env, warn);
  const redactor = redactorFor(auth);
  if (cluster.tls?.insecureSkipVerify === true) {
    warn(
      `${key}: TLS certificate verification is DISABLED (insecureSkipVerify); anyone on the path can read and alter the answers`,
    );
  }
  try {
    return { client: factory(cluster, auth), redactor };
  } catch (err) {
    if (err instanceof ClientConfigError || err instanceof RangeError) throw new ConfigError(key, err.message);
    throw err;
  }
}
