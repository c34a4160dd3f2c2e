/**
 * What `collect --listen` adds to a recording: the metrics and the readiness, fed by the
 * collector's hooks (every stored record, every finished round), served over HTTP.
 */
import type { PollRecord } from '../../db/poll-record.ts';
import type { CollectorConfig } from '../config.ts';
import { hostPort, isLoopback, startHealthServer, type HealthServer } from '../health-server.ts';
import type { CollectorStats } from '../output.ts';
import type { RoundResult } from '../poller.ts';
import { CollectorMetrics, type AlertDeliveryStats } from './collector-metrics.ts';
import { Readiness, readinessTargets } from './readiness.ts';

/** What the endpoints are built from. */
export interface ObservabilityOptions {
  readonly config: CollectorConfig;
  /** ms since the epoch, on the clock of the poll times */
  readonly now: () => number;
  readonly dbSize?: () => number | undefined;
}

/** Metrics and readiness of one collector; `record` and `round` are its hooks. */
export class Observability {
  /** the /metrics registry and its feeds */
  readonly metrics: CollectorMetrics;
  /** the /readyz verdict and its feeds */
  readonly readiness: Readiness;
  #stats: CollectorStats | undefined;
  #alerts: (() => readonly AlertDeliveryStats[]) | undefined;

  /** Builds both from the configuration (nothing is served yet). */
  constructor(opts: ObservabilityOptions) {
    this.metrics = new CollectorMetrics({
      stats: () => this.#stats,
      alerts: () => this.#alerts?.() ?? [],
      ...(opts.dbSize === undefined ? {} : { dbSize: opts.dbSize }),
    });
    this.readiness = new Readiness(readinessTargets(opts.config), opts.now);
  }

  /** Reads the collector's live counters from now on. */
  attach(stats: CollectorStats): void {
    this.#stats = stats;
  }

  /** Reads the live alerts' delivery counters from now on. */
  attachAlerts(read: () => readonly AlertDeliveryStats[]): void {
    this.#alerts = read;
  }

  /** The collector's onRecord hook. */
  readonly record = (r: PollRecord): void => {
    // the recording comes first: a fault here must never keep a poll from the store
    try {
      this.metrics.record(r);
      this.readiness.record(r);
    } catch {
      // the next scrape shows stale values rather than nothing
    }
  };

  /** The collector's onRound hook. */
  readonly round = (r: RoundResult): void => {
    try {
      this.metrics.round(r);
      this.readiness.round(r);
    } catch {
      // as in record
    }
  };

  /**
   * Serves /metrics, /healthz and /readyz on `listen`; `line` gets the address served and, for an
   * address that is not loopback, a warning. Rejects when the address cannot be bound.
   */
  async serve(
    listen: { readonly host: string; readonly port: number },
    line: (text: string) => void,
  ): Promise<HealthServer> {
    const server = await startHealthServer(listen.host, listen.port, {
      metrics: () => this.metrics.page(),
      ready: () => this.readiness.check(),
    });
    line(`serving /metrics, /healthz and /readyz at ${server.url}`);
    if (!isLoopback(listen.host)) {
      line(
        `warning: --listen ${hostPort(listen.host, server.port)} is not a loopback address: ` +
          'anyone who can reach it can read the metrics (cluster, link and topic names included)',
      );
    }
    return server;
  }
}
