/**
 * One JSON POST to a receiver over undici: its own connection pool (TLS options: CA, client
 * certificate, verification), the authorization header from a Secret, a timeout on the whole
 * request, at most 64 KiB of the answer read. The outcome says whether a retry may help; its
 * message never holds the URL (a webhook's path or query may be a secret) or a credential.
 */
import { Agent, request } from 'undici';
import type { Redactor, Secret } from '../api/client/index.ts';

/** TLS toward an https receiver, files already read. */
export interface PostTls {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  readonly rejectUnauthorized: boolean;
}

/** How a POST went. */
export type PostOutcome =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly retry: boolean; readonly message: string };

/** Most bytes of an answer read (the rest is dropped). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Posts JSON bodies to one URL; see the module comment. */
export class JsonPoster {
  readonly #url: string;
  readonly #agent: Agent;
  readonly #authorization: Secret | undefined;
  readonly #timeoutMs: number;
  readonly #redactor: Redactor | undefined;

  /** `redactor` scrubs the receiver's secrets from what it answers (a proxy may echo them). */
  constructor(opts: { url: string; authorization?: Secret; tls?: PostTls; timeoutMs: number; redactor?: Redactor }) {
    this.#url = opts.url;
    this.#redactor = opts.redactor;
    this.#authorization = opts.authorization;
    this.#timeoutMs = opts.timeoutMs;
    this.#agent = new Agent({
      keepAliveTimeout: 30_000,
      connections: 2,
      connectTimeout: opts.timeoutMs,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      ...(opts.tls === undefined ? {} : { connect: { ...opts.tls } }),
    });
  }

  /** Posts `body`; `headers` are added; `signal` cancels it (so does the timeout). */
  async post(body: string, headers: Record<string, string>, signal?: AbortSignal): Promise<PostOutcome> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const joined = signal === undefined ? undefined : eitherSignal(signal, timeout);
    const both = joined?.signal ?? timeout;
    try {
      const res = await request(this.#url, {
        method: 'POST',
        dispatcher: this.#agent,
        signal: both,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'flightrec',
          ...headers,
          ...(this.#authorization === undefined ? {} : { authorization: this.#authorization.reveal() }),
        },
        body,
      });
      const raw = await readSome(res.body);
      const text = this.#redactor === undefined ? raw : this.#redactor.text(raw);
      if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true, status: res.statusCode };
      const retry = res.statusCode === 408 || res.statusCode === 429 || res.statusCode >= 500;
      const said = text.trim() === '' ? '' : `: ${oneLine(text)}`;
      return { ok: false, retry, message: `HTTP ${res.statusCode}${said}` };
    } catch (err) {
      if (timeout.aborted) return { ok: false, retry: true, message: `no answer within ${this.#timeoutMs} ms` };
      if (signal?.aborted === true) return { ok: false, retry: false, message: 'stopped' };
      return { ok: false, retry: true, message: transportMessage(err) };
    } finally {
      // the caller's signal lives on (a queue's stop): it must not keep a listener per request
      joined?.dispose();
    }
  }

  /** Closes the connections (a request in flight is cut). */
  async close(): Promise<void> {
    await this.#agent.destroy().catch(() => {});
  }
}

/**
 * A signal aborted when either is (AbortSignal.any, which Node 20 has only from 20.3), and
 * `dispose`, which takes its listeners off both: a long-lived signal would otherwise keep one per
 * request until the request's timeout fired.
 */
function eitherSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  if (a.aborted) return { signal: a, dispose: () => {} };
  if (b.aborted) return { signal: b, dispose: () => {} };
  const both = new AbortController();
  const dispose = (): void => {
    a.removeEventListener('abort', abort);
    b.removeEventListener('abort', abort);
  };
  function abort(): void {
    dispose();
    both.abort();
  }
  a.addEventListener('abort', abort, { once: true });
  b.addEventListener('abort', abort, { once: true });
  return { signal: both.signal, dispose };
}

async function readSome(body: AsyncIterable<Buffer> & { destroy?: () => void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < MAX_ANSWER_BYTES) chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - size));
    size += chunk.length;
    if (size >= MAX_ANSWER_BYTES) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- answers are shown on one line without control characters
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  return flat.length <= 200 ? flat : `${flat.slice(0, 199)}…`;
}

/** A transport failure by its code (ECONNREFUSED, UND_ERR_SOCKET, ...), never with the URL. */
function transportMessage(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== undefined && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return err instanceof Error ? err.name : 'transport error';
}
