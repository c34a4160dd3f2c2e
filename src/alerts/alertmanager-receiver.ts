/**
 * Live alerts to an Alertmanager, through its API v2 (`POST /api/v2/alerts`), the way Prometheus
 * sends them. One alert per label set (events of one kind, entity and severity that overlap are
 * one alert, from the earliest start); a firing alert is sent when it opens and again every
 * resend interval with `endsAt` four intervals ahead (so it never expires between two sends),
 * and resolved when its last event ends (`endsAt` the event's end), that too sent again for a
 * while. An event found already ended (a point, or an interval dated back and closed by the
 * time it was seen) is sent firing once, then resolved an interval later, so that Alertmanager
 * notifies it. Times later than the clock (a simulated recording running ahead) are sent as now.
 */
import { formatTimestamp } from '../api/codec/timestamp.ts';
import type { TimelineEvent } from '../report/timeline/types.ts';
import { alertAnnotations, alertLabels, generatorUrl } from './alert-labels.ts';
import { DeliveryQueue, type DeliveryCounts, type RetryPolicy } from './delivery-queue.ts';
import { eventKey, type LiveTransition } from './event-tracker.ts';
import type { JsonPoster } from './http-post.ts';

/** How long a resolved alert is sent again (Prometheus: 15 minutes). */
export const RESOLVED_RESEND_MS = 15 * 60_000;
/** Most alerts per request (Prometheus: 64). */
export const ALERTS_PER_POST = 64;

interface AmAlert {
  readonly labels: Record<string, string>;
  annotations: Record<string, string>;
  generatorURL: string;
  startNs: bigint;
  /** null while firing */
  endNs: bigint | null;
  /** the events under this label set, by identity */
  readonly events: Set<string>;
  /** events found already ended: their end, once the firing alert has been delivered and an interval has passed */
  readonly settle: Map<string, bigint>;
  settleAfterMs: number | undefined;
  /** wall clock ms when it was resolved */
  resolvedAtMs: number | undefined;
  latestEnd: bigint | undefined;
}

/** What an AlertmanagerReceiver is built from. */
export interface AlertmanagerReceiverOptions {
  readonly name: string;
  readonly poster: JsonPoster;
  readonly resendIntervalMs: number;
  readonly capacity: number;
  readonly retry: RetryPolicy;
  /** wall clock, ms since the epoch */
  readonly now: () => number;
  readonly line: (text: string) => void;
}

const NS_PER_MS = 1_000_000n;

/** One Alertmanager; see the module comment. */
export class AlertmanagerReceiver {
  readonly kind = 'alertmanager';
  readonly name: string;
  readonly #o: AlertmanagerReceiverOptions;
  readonly #alerts = new Map<string, AmAlert>();
  /** the label set each announced event is under */
  readonly #eventFp = new Map<string, string>();
  readonly #queue: DeliveryQueue<string>;
  readonly #timer: NodeJS.Timeout;

  constructor(opts: AlertmanagerReceiverOptions) {
    this.#o = opts;
    this.name = opts.name;
    this.#queue = new DeliveryQueue<string>({
      name: opts.name,
      capacity: opts.capacity,
      batch: ALERTS_PER_POST,
      retry: opts.retry,
      line: opts.line,
      send: (fps, signal) => this.#send(fps, signal),
      delivered: (fps) => this.#delivered(fps),
    });
    this.#timer = setInterval(() => this.resend(), opts.resendIntervalMs);
    this.#timer.unref();
  }

  /** Alerts sent, failed and dropped. */
  get counts(): DeliveryCounts {
    return this.#queue.counts;
  }

  /** Alerts waiting to be sent. */
  get queued(): number {
    return this.#queue.queued;
  }

  /** Takes one transition (it passed this receiver's filter). */
  take(t: LiveTransition): void {
    const e = t.event;
    const key = eventKey(e);
    if (t.change === 'escalated') {
      // a new severity is a new label set: the old one is resolved as of now
      this.#endEvent(key, t.detectedAt, e);
      this.#open(t.cluster, key, e);
      return;
    }
    const end = e.end ?? (t.change === 'ended' ? t.detectedAt : null);
    if (t.change === 'ended' && this.#eventFp.has(key)) {
      this.#endEvent(key, end ?? t.detectedAt, e);
      return;
    }
    // opened; an event found ended fires once, then resolves (see resend)
    const fp = this.#open(t.cluster, key, e);
    if (end !== null) this.#alerts.get(fp)?.settle.set(key, end);
  }

  /** Sends every firing alert again, and the recently resolved ones; ends events found ended whose firing was delivered. */
  resend(): void {
    const now = this.#o.now();
    for (const [fp, a] of this.#alerts) {
      if (a.settleAfterMs !== undefined && a.settleAfterMs <= now) {
        a.settleAfterMs = undefined;
        for (const [key, end] of [...a.settle]) this.#endEvent(key, end);
      }
      if (a.endNs === null) this.#queue.push(fp, fp);
      else if (a.resolvedAtMs !== undefined && now - a.resolvedAtMs <= RESOLVED_RESEND_MS) this.#queue.push(fp, fp);
      else this.#alerts.delete(fp);
    }
  }

  /** Settles when nothing waits (or `signal` aborts). */
  flush(signal?: AbortSignal): Promise<void> {
    return this.#queue.idle(signal);
  }

  /** Stops resending and sending (what waits is dropped and counted). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#queue.close();
  }

  /** Puts the event under its label set (a new alert, or one still firing); returns the label set's key. */
  #open(cluster: string, key: string, e: TimelineEvent): string {
    const labels = alertLabels(cluster, e);
    const fp = fingerprint(labels);
    let a = this.#alerts.get(fp);
    if (a === undefined || a.endNs !== null) {
      a = {
        labels,
        annotations: {},
        generatorURL: '',
        startNs: e.start,
        endNs: null,
        events: new Set(),
        settle: new Map(),
        settleAfterMs: undefined,
        resolvedAtMs: undefined,
        latestEnd: undefined,
      };
      this.#alerts.set(fp, a);
    }
    if (e.start < a.startNs) a.startNs = e.start;
    a.events.add(key);
    a.annotations = alertAnnotations(cluster, e);
    a.generatorURL = generatorUrl(cluster, e);
    this.#eventFp.set(key, fp);
    this.#queue.push(fp, fp);
    return fp;
  }

  /** The event ended at `end`: its alert is resolved when it was the last one under its label set. */
  #endEvent(key: string, end: bigint, latest?: TimelineEvent): void {
    const fp = this.#eventFp.get(key);
    if (fp === undefined) return;
    this.#eventFp.delete(key);
    const a = this.#alerts.get(fp);
    if (a === undefined) return;
    a.events.delete(key);
    a.settle.delete(key);
    if (a.latestEnd === undefined || end > a.latestEnd) a.latestEnd = end;
    if (latest !== undefined) {
      const cluster = a.labels.cluster ?? '';
      a.annotations = alertAnnotations(cluster, latest);
      a.generatorURL = generatorUrl(cluster, latest);
    }
    if (a.events.size > 0) return;
    a.endNs = a.latestEnd;
    a.resolvedAtMs = this.#o.now();
    this.#queue.push(fp, fp);
  }

  #delivered(fps: readonly string[]): void {
    const after = this.#o.now() + this.#o.resendIntervalMs;
    for (const fp of fps) {
      const a = this.#alerts.get(fp);
      if (a !== undefined && a.endNs === null && a.settle.size > 0) a.settleAfterMs ??= after;
    }
  }

  #send(fps: readonly string[], signal: AbortSignal): ReturnType<JsonPoster['post']> {
    const nowNs = BigInt(Math.floor(this.#o.now())) * NS_PER_MS;
    const ahead = nowNs + BigInt(4 * this.#o.resendIntervalMs) * NS_PER_MS;
    const body = fps.flatMap((fp) => {
      const a = this.#alerts.get(fp);
      if (a === undefined) return [];
      const starts = a.startNs < nowNs ? a.startNs : nowNs;
      let ends = a.endNs === null ? ahead : a.endNs;
      if (a.endNs !== null && ends > nowNs) ends = nowNs;
      if (ends < starts) ends = starts;
      return [
        {
          labels: a.labels,
          annotations: a.annotations,
          startsAt: formatTimestamp(starts),
          endsAt: formatTimestamp(ends),
          generatorURL: a.generatorURL,
        },
      ];
    });
    if (body.length === 0) return Promise.resolve({ ok: true, status: 200 });
    return this.#o.poster.post(JSON.stringify(body), {}, signal);
  }
}

/** A label set's key: its labels, sorted. */
function fingerprint(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
