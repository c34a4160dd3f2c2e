/** A tiny HTTP(S) server on 127.0.0.1 (never any other address) for client tests. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** A request as the server saw it, body read in full. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
  /** client port of the TCP connection (equal ports: a kept-alive connection was reused) */
  readonly remotePort: number;
}

/** Answers one request; the body is already read. Not answering at all is allowed (a hung server). */
export type LoopbackHandler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

/** A running loopback server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` (or https) */
  readonly url: string;
  readonly port: number;
  /** every request received, in order */
  readonly requests: RecordedRequest[];
  /** stops the server, dropping open (even hung) connections */
  close(): Promise<void>;
}

/** Options: serve HTTPS with this key and certificate (PEM). */
export interface LoopbackOptions {
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
}

/** Starts a server on 127.0.0.1, port 0 (any free port). */
export async function startLoopbackServer(
  handler: LoopbackHandler,
  options: LoopbackOptions = {},
): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        remotePort: req.socket.remotePort ?? 0,
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`handler failed: ${String(err)}`);
      });
    });
  };
  const server: Server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A 127.0.0.1 port that was listening a moment ago and is now closed (connecting is refused). */
export async function closedLoopbackPort(): Promise<number> {
  const server = await startLoopbackServer(() => undefined);
  await server.close();
  return server.port;
}

/** Writes a complete answer with a status, a body and headers (content-type defaults to JSON). */
export function answer(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}
