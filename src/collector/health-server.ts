/**
 * The collector's HTTP endpoints (`collect --listen`): `/metrics`, `/healthz` and `/readyz`, with
 * node:http. Bounded: only GET and HEAD (405 otherwise), 404 for any other path, request bodies
 * never read (the connection is closed after the answer instead), few connections, short
 * timeouts; close() ends every connection at once.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the endpoints answer with. */
export interface HealthHandlers {
  /** the /metrics page */
  readonly metrics: () => Promise<{ contentType: string; body: string }>;
  /** the /readyz verdict */
  readonly ready: () => { ready: boolean; text: string };
}

/** A running endpoint server. */
export interface HealthServer {
  /** `http://host:port` as bound (the real port when 0 was asked) */
  readonly url: string;
  readonly port: number;
  /** Stops listening and ends every open connection. */
  close(): Promise<void>;
}

/** Most connections served at once. */
export const MAX_CONNECTIONS = 16;
/** Time allowed for a request's headers and for the whole request, ms. */
export const REQUEST_TIMEOUT_MS = 5_000;

const TEXT = 'text/plain; charset=utf-8';

/** True for a loopback address (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\./.test(h);
}

/** The address in URL form (`[::1]:9464`). */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  extra: Record<string, string> = {},
): void {
  const bytes = Buffer.from(body, 'utf8');
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': String(bytes.length),
    'cache-control': 'no-store',
    // a body we did not read must not be taken for the next request
    ...(hasBody ? { connection: 'close' } : {}),
    ...extra,
  });
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

async function handle(h: HealthHandlers, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(req, res, 405, TEXT, 'only GET and HEAD\n', { allow: 'GET, HEAD' });
    return;
  }
  switch (path) {
    case '/metrics': {
      const page = await h.metrics();
      send(req, res, 200, page.contentType, page.body);
      return;
    }
    case '/healthz':
      send(req, res, 200, TEXT, 'ok\n');
      return;
    case '/readyz': {
      const r = h.ready();
      send(req, res, r.ready ? 200 : 503, TEXT, r.text);
      return;
    }
    default:
      send(req, res, 404, TEXT, 'not found: /metrics, /healthz and /readyz are served\n');
  }
}

/** Starts the server; rejects with the listen error (e.g. EADDRINUSE) when it cannot bind. */
export function startHealthServer(host: string, port: number, handlers: HealthHandlers): Promise<HealthServer> {
  const server = createServer(
    { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS, keepAliveTimeout: 1_000 },
    (req, res) => {
      handle(handlers, req, res).catch(() => {
        if (!res.headersSent) send(req, res, 500, TEXT, 'internal error\n');
        else res.destroy();
      });
    },
  );
  server.maxConnections = MAX_CONNECTIONS;
  server.maxHeadersCount = 64;
  server.maxRequestsPerSocket = 100;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      // a failure to accept one connection must not end the collector
      server.on('error', () => {});
      const bound = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${hostPort(host, bound)}`,
        port: bound,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
