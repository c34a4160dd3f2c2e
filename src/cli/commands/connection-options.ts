/** The options that say how to reach a cluster, shared by `collect` and `check`. */
import type { Command } from 'commander';

/** The connection options as commander gives them. */
export interface ConnectionOpts {
  baseUrl?: string;
  servicePrefix?: string;
  timeout?: string;
  username?: string;
  passwordEnv?: string;
  passwordFile?: string;
  tokenEnv?: string;
  tokenFile?: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  insecureSkipVerify?: boolean;
}

/** Adds the cluster connection options (address, prefix, timeout, authentication, TLS) to `cmd`. */
export function addConnectionOptions(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', 'admin API base URL of the cluster (env FLIGHTREC_BASE_URL)')
    .option('--service-prefix <prefix>', 'service prefix of the paths (default platform.core.admin.v2)')
    .option('--timeout <duration>', 'per-call timeout (default 10s)')
    .option('--username <name>', 'basic authentication user; password from FLIGHTREC_PASSWORD unless named otherwise')
    .option('--password-env <var>', 'environment variable holding the password')
    .option('--password-file <file>', 'file holding the password')
    .option('--token-env <var>', 'environment variable holding a bearer token')
    .option('--token-file <file>', 'file holding a bearer token')
    .option('--ca-file <file>', 'PEM CA bundle to trust (https)')
    .option('--cert-file <file>', 'PEM client certificate (mutual TLS)')
    .option('--key-file <file>', 'PEM client key (mutual TLS)')
    .option('--insecure-skip-verify', 'do not verify the server certificate (test clusters only)');
}
