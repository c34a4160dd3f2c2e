/**
 * The receivers of the live alerts, made from the configuration before anything is opened (a
 * credential that cannot be read, a TLS file that is not there, a filter that cannot match is
 * a ConfigError naming the key), and the routing of transitions to each through its filter: an
 * event is announced to a receiver once it passes (at its opening, or at an escalation that
 * lifts it over the minimum severity), and only an announced event is ended there.
 */
import { readFileSync } from 'node:fs';
import { ClientConfigError, loadSecret, Redactor, Secret, secretNeedles } from '../api/client/index.ts';
import { ConfigError } from '../collector/config-error.ts';
import type { AlertReceiverConfig, AlertsConfig, AuthConfig } from '../collector/config.ts';
import { AlertFilterError, compileAlertFilter, type AlertFilter } from './alert-filter.ts';
import { AlertmanagerReceiver } from './alertmanager-receiver.ts';
import type { DeliveryCounts } from './delivery-queue.ts';
import { eventKey, type LiveTransition } from './event-tracker.ts';
import { JsonPoster, type PostTls } from './http-post.ts';
import { WebhookReceiver } from './webhook-receiver.ts';

/** A receiver as the router sees it. */
export interface AlertReceiver {
  readonly kind: 'alertmanager' | 'webhook';
  readonly name: string;
  readonly counts: DeliveryCounts;
  readonly queued: number;
  take(t: LiveTransition): void;
  flush(signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** Where the receivers' clocks and lines come from. */
export interface ReceiverDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** warnings at start-up (a secret file others can read, TLS verification off) */
  readonly warn: (line: string) => void;
  /** lines while running (a delivery given up, a receiver back) */
  readonly line: (text: string) => void;
  /** wall clock, ms since the epoch */
  readonly now: () => number;
}

/** A receiver behind its filter. */
export interface RoutedReceiver {
  readonly receiver: AlertReceiver;
  readonly passes: AlertFilter;
  /** identities of the events announced to it and not ended */
  readonly announced: Set<string>;
}

/** Makes every configured receiver; throws ConfigError naming what cannot be used. */
export function prepareReceivers(config: AlertsConfig, deps: ReceiverDeps): RoutedReceiver[] {
  const made: RoutedReceiver[] = [];
  try {
    config.receivers.forEach((r) => {
      const key = `alerts receiver ${r.name}`;
      let passes: AlertFilter;
      try {
        passes = compileAlertFilter(r.filter, key);
      } catch (err) {
        if (err instanceof AlertFilterError) throw new ConfigError('', err.message);
        throw err;
      }
      made.push({ receiver: makeReceiver(r, config, deps, key), passes, announced: new Set() });
    });
  } catch (err) {
    for (const m of made) void m.receiver.close();
    throw err;
  }
  return made;
}

function makeReceiver(r: AlertReceiverConfig, config: AlertsConfig, deps: ReceiverDeps, key: string): AlertReceiver {
  const needles: string[] = [];
  const authorization = authorizationOf(r.auth, key, deps, needles);
  let secret: Secret | undefined;
  if (r.secret !== undefined) {
    secret = loaded(() => loadSecret(r.secret!, deps.env), `${key}: secret`, deps);
    if (secret.isEmpty) throw new ConfigError(key, 'the webhook secret is empty');
    needles.push(...secretNeedles(secret.reveal()));
  }
  if (r.tls?.insecureSkipVerify === true)
    deps.warn(
      `${key}: TLS certificate verification is DISABLED (insecureSkipVerify); anyone on the path can read and alter the alerts`,
    );
  const poster = new JsonPoster({
    url: r.kind === 'alertmanager' ? alertsEndpoint(r.url) : r.url,
    ...(authorization === undefined ? {} : { authorization }),
    ...(r.tls === undefined ? {} : { tls: tlsOf(r.tls, key) }),
    timeoutMs: r.timeoutMs,
    ...(needles.length === 0 ? {} : { redactor: new Redactor(needles) }),
  });
  const common = {
    name: r.name,
    poster,
    capacity: config.queueSize,
    retry: config.retry,
    now: deps.now,
    line: deps.line,
  };
  return r.kind === 'alertmanager'
    ? new AlertmanagerReceiver({ ...common, resendIntervalMs: config.resendIntervalMs })
    : new WebhookReceiver({ ...common, ...(secret === undefined ? {} : { secret }) });
}

/** `POST /api/v2/alerts` under an Alertmanager's base URL (its path prefix kept, its query too). */
function alertsEndpoint(base: string): string {
  const u = new URL(base);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/api/v2/alerts`;
  return u.href;
}

function loaded(load: () => { secret: Secret; warnings: string[] }, what: string, deps: ReceiverDeps): Secret {
  try {
    const got = load();
    for (const w of got.warnings) deps.warn(`${what}: ${w}`);
    return got.secret;
  } catch (err) {
    if (err instanceof ClientConfigError) throw new ConfigError(what, err.message);
    throw err;
  }
}

/** The Authorization header of a receiver's auth, and the forms of its secret to scrub from answers. */
function authorizationOf(auth: AuthConfig, key: string, deps: ReceiverDeps, needles: string[]): Secret | undefined {
  if (auth.kind === 'none') return undefined;
  if (auth.kind === 'basic') {
    const source = auth.passwordFile !== undefined ? { file: auth.passwordFile } : { env: auth.passwordEnv! };
    const password = loaded(() => loadSecret(source, deps.env), `${key}: auth`, deps).reveal();
    // eslint-disable-next-line no-control-regex -- a header cannot carry control characters
    if (/[\u0000-\u001f\u007f]/.test(password) || auth.username.includes(':'))
      throw new ConfigError(`${key}: auth`, 'the user name holds ":" or the password a control character');
    needles.push(...secretNeedles(password, auth.username));
    return new Secret(`Basic ${Buffer.from(`${auth.username}:${password}`, 'utf8').toString('base64')}`);
  }
  const source = auth.tokenFile !== undefined ? { file: auth.tokenFile } : { env: auth.tokenEnv! };
  const token = loaded(() => loadSecret(source, deps.env), `${key}: auth`, deps).reveal();
  if (token === '' || /\s/.test(token) || /\p{Cc}/u.test(token))
    throw new ConfigError(`${key}: auth`, 'the token is empty or holds white space or control characters');
  needles.push(...secretNeedles(token));
  return new Secret(`Bearer ${token}`);
}

function tlsOf(tls: NonNullable<AlertReceiverConfig['tls']>, key: string): PostTls {
  const read = (path: string | undefined, what: string): Buffer | undefined => {
    if (path === undefined) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw new ConfigError(
        `${key}: tls.${what}`,
        `cannot read ${path}: ${typeof code === 'string' ? code : 'unknown error'}`,
      );
    }
  };
  const out: { ca?: Buffer; cert?: Buffer; key?: Buffer; rejectUnauthorized: boolean } = {
    rejectUnauthorized: !tls.insecureSkipVerify,
  };
  const ca = read(tls.caFile, 'caFile');
  const cert = read(tls.certFile, 'certFile');
  const keyPem = read(tls.keyFile, 'keyFile');
  if (ca !== undefined) out.ca = ca;
  if (cert !== undefined) out.cert = cert;
  if (keyPem !== undefined) out.key = keyPem;
  return out;
}

/** Hands a transition to every receiver it concerns (see the module comment). */
export function route(receivers: readonly RoutedReceiver[], t: LiveTransition): void {
  const key = eventKey(t.event);
  for (const r of receivers) {
    const was = r.announced.has(key);
    const passes = r.passes(t.event.kind, t.event.severity);
    if (t.change === 'ended') {
      if (!was) continue;
      r.announced.delete(key);
      r.receiver.take(t);
      continue;
    }
    if (was) {
      r.receiver.take(t);
    } else if (passes) {
      // first announced here: as an opening, even when it was an escalation elsewhere
      if (t.event.end === null) r.announced.add(key);
      r.receiver.take(t.change === 'opened' ? t : { ...t, change: 'opened' });
    }
  }
}
