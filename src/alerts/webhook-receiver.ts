/**
 * Live alerts to a webhook: one POST per change of an event, its body a JSON envelope around the
 * event in the schema of `timeline -o json`. With a secret, each attempt is signed:
 * `X-Flightrec-Timestamp` (Unix seconds of the attempt) and `X-Flightrec-Signature:
 * sha256=HEX`, the HMAC-SHA256 under the secret of `TIMESTAMP.BODY`; a receiver recomputes it,
 * compares in constant time and refuses a timestamp too far from its clock (a replay).
 * `X-Flightrec-Delivery` stays the same across the retries of one delivery.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { Secret } from '../api/client/index.ts';
import { formatTimestamp } from '../api/codec/timestamp.ts';
import { eventToJson } from '../report/render/timeline-json.ts';
import { DeliveryQueue, type DeliveryCounts, type RetryPolicy } from './delivery-queue.ts';
import type { LiveTransition } from './event-tracker.ts';
import type { JsonPoster, PostOutcome } from './http-post.ts';

/** Version of the envelope. */
export const WEBHOOK_VERSION = 1;

/** The headers of a signed delivery. */
export const SIGNATURE_HEADER = 'x-flightrec-signature';
/** The Unix time (seconds) the signature covers. */
export const TIMESTAMP_HEADER = 'x-flightrec-timestamp';
/** The id of a delivery, the same across its retries. */
export const DELIVERY_HEADER = 'x-flightrec-delivery';

/** The body of a webhook delivery. */
export function webhookBody(t: LiveTransition): string {
  return JSON.stringify({
    version: WEBHOOK_VERSION,
    status: t.event.end === null ? 'firing' : 'resolved',
    change: t.change,
    cluster: t.cluster,
    detectedAt: formatTimestamp(t.detectedAt),
    event: eventToJson(t.event),
  });
}

/** `sha256=HEX`: the signature of `body` sent at `timestamp` (Unix seconds). */
export function webhookSignature(secret: Secret, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret.reveal()).update(`${timestamp}.${body}`).digest('hex')}`;
}

interface Delivery {
  readonly id: string;
  readonly body: string;
}

/** What a WebhookReceiver is built from. */
export interface WebhookReceiverOptions {
  readonly name: string;
  readonly poster: JsonPoster;
  /** the HMAC key; no signature without one */
  readonly secret?: Secret;
  readonly capacity: number;
  readonly retry: RetryPolicy;
  /** wall clock, ms since the epoch */
  readonly now: () => number;
  readonly line: (text: string) => void;
}

/** One webhook; see the module comment. */
export class WebhookReceiver {
  readonly kind = 'webhook';
  readonly name: string;
  readonly #o: WebhookReceiverOptions;
  readonly #queue: DeliveryQueue<Delivery>;

  constructor(opts: WebhookReceiverOptions) {
    this.#o = opts;
    this.name = opts.name;
    this.#queue = new DeliveryQueue<Delivery>({
      name: opts.name,
      capacity: opts.capacity,
      batch: 1,
      retry: opts.retry,
      line: opts.line,
      send: ([d], signal) => this.#send(d!, signal),
    });
  }

  /** Events sent, failed and dropped. */
  get counts(): DeliveryCounts {
    return this.#queue.counts;
  }

  /** Events waiting to be sent. */
  get queued(): number {
    return this.#queue.queued;
  }

  /** Takes one transition (it passed this receiver's filter). */
  take(t: LiveTransition): void {
    const id = randomUUID();
    this.#queue.push(id, { id, body: webhookBody(t) });
  }

  /** Settles when nothing waits (or `signal` aborts). */
  flush(signal?: AbortSignal): Promise<void> {
    return this.#queue.idle(signal);
  }

  /** Stops sending (what waits is dropped and counted). */
  close(): Promise<void> {
    return this.#queue.close();
  }

  #send(d: Delivery, signal: AbortSignal): Promise<PostOutcome> {
    const headers: Record<string, string> = { [DELIVERY_HEADER]: d.id };
    if (this.#o.secret !== undefined) {
      const timestamp = Math.floor(this.#o.now() / 1000);
      headers[TIMESTAMP_HEADER] = String(timestamp);
      headers[SIGNATURE_HEADER] = webhookSignature(this.#o.secret, timestamp, d.body);
    }
    return this.#o.poster.post(d.body, headers, signal);
  }
}
