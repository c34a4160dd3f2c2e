/**
 * Live alerts of a recording: the collector's "a round was stored" hook asks the live timeline
 * for a step (never waiting for it), the transitions it finds are routed to the receivers, each
 * delivering on its own. At the end the timeline takes its last look and the receivers send what
 * waits, within a deadline; what is left is dropped and counted.
 */
import { sanitizeCell } from '../api/safe-text.ts';
import type { AlertsConfig } from '../collector/config.ts';
import type { StoredRound } from '../collector/stored-horizon.ts';
import type { Thresholds } from '../report/timeline/thresholds.ts';
import { AlertThread } from './alert-thread.ts';
import type { LiveTransition } from './event-tracker.ts';
import type { EngineHooks, LiveEngine } from './live-engine.ts';
import { prepareReceivers, route, type ReceiverDeps, type RoutedReceiver } from './receivers.ts';

/** The counters of one receiver, for the collector's metrics. */
export interface ReceiverStats {
  readonly receiver: string;
  readonly kind: 'alertmanager' | 'webhook';
  readonly sent: number;
  readonly failed: number;
  readonly dropped: number;
  readonly queued: number;
}

/** The live alerts of one collector; see the module comment. */
export class LiveAlerts {
  readonly #receivers: readonly RoutedReceiver[];
  readonly #engine: LiveEngine;
  readonly #line: (text: string) => void;
  /** failures of the live timeline already said (each said once) */
  readonly #said = new Set<string>();
  #closed: Promise<void> | undefined;

  /** `engine` is made with the hooks given (so that its transitions reach the receivers). */
  constructor(
    receivers: readonly RoutedReceiver[],
    engine: (hooks: EngineHooks) => LiveEngine,
    line: (text: string) => void,
  ) {
    this.#receivers = receivers;
    this.#line = line;
    this.#engine = engine({
      onTransitions: (ts) => this.#take(ts),
      onError: (message) => {
        if (this.#said.has(message) || this.#said.size > 100) return;
        this.#said.add(message);
        this.#line(`error: live alerts: ${sanitizeCell(message)}`);
      },
    });
  }

  /** The collector's onStored hook: a step of the live timeline, soon. */
  readonly stored = (s: StoredRound): void => {
    if (this.#closed !== undefined) return;
    this.#engine.step(s.result.cluster, s.settledBefore);
  };

  /** Counters per receiver. */
  stats(): ReceiverStats[] {
    return this.#receivers.map(({ receiver: r }) => ({
      receiver: r.name,
      kind: r.kind,
      sent: r.counts.sent,
      failed: r.counts.failed,
      dropped: r.counts.dropped,
      queued: r.queued,
    }));
  }

  /** The last look of the live timeline, then what waits is sent; both within `deadlineMs` in all. */
  close(deadlineMs: number): Promise<void> {
    this.#closed ??= this.#close(deadlineMs);
    return this.#closed;
  }

  async #close(deadlineMs: number): Promise<void> {
    const end = performance.now() + deadlineMs;
    await this.#engine.finish(deadlineMs);
    const stop = AbortSignal.timeout(Math.max(1, Math.ceil(end - performance.now())));
    await Promise.all(this.#receivers.map((r) => r.receiver.flush(stop)));
    await Promise.all(this.#receivers.map((r) => r.receiver.close()));
  }

  #take(ts: readonly LiveTransition[]): void {
    for (const t of ts) route(this.#receivers, t);
  }
}

/** What startLiveAlerts needs besides the configuration. */
export interface LiveAlertsOptions extends ReceiverDeps {
  /** the database the worker reads (a file or a PostgreSQL URL) */
  readonly database: string;
  readonly passwordFile?: string;
  readonly thresholds: Thresholds;
  /** when the recording starts, ns on the clock of the poll times */
  readonly startNs: bigint;
}

/**
 * Makes the receivers (a ConfigError names what cannot be used; nothing is opened yet) and the
 * live alerts over a worker thread, started at the first stored round.
 */
export function startLiveAlerts(config: AlertsConfig, opts: LiveAlertsOptions): LiveAlerts {
  // what receivers answer reaches these lines: one line each, without control characters
  const receivers = prepareReceivers(config, { ...opts, line: (text) => opts.line(sanitizeCell(text)) });
  return new LiveAlerts(
    receivers,
    (hooks) =>
      new AlertThread(
        {
          database: opts.database,
          ...(opts.passwordFile === undefined ? {} : { passwordFile: opts.passwordFile }),
          thresholds: opts.thresholds,
          startNs: opts.startNs,
        },
        hooks,
      ),
    opts.line,
  );
}
