/**
 * A loopback HTTP proxy in front of the simulated cluster that damages answers in ways the
 * simulator's own `api_fault` events do not (unknown and missing fields, timestamps far away or
 * out of range, a jumping cluster clock, hostile strings, error bodies of its own). Windows are
 * in simulated time. Every request is logged in order with what the client finally got, so a
 * test can match each recorded poll to the exact bytes that were served.
 */
import { createServer, request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { OperationName } from '../../../src/api/schema/operations.ts';
import type { SimServer } from '../../../src/sim/index.ts';

/** What a mutation returns: a replacement answer. */
export interface Served {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
}

/** Rewrites one upstream answer (called only for answers the simulator gave). */
export type Mutation = (
  answer: Served,
  ctx: { op: OperationName; request: Buffer; headers: IncomingMessage['headers'] },
) => Served;

/** A mutation in force for some operations during a window of simulated time (seconds from the world start). */
export interface ProxyRule {
  readonly name: string;
  readonly from: number;
  readonly until: number;
  /** default: every operation */
  readonly ops?: readonly OperationName[];
  readonly mutate: Mutation;
}

/** One request as it went through the proxy. */
export interface ProxyLogEntry {
  readonly seq: number;
  readonly op: OperationName;
  readonly request: Buffer;
  /** answered: the client got `served`; dropped: the connection was closed without an answer; aborted: the client left first */
  outcome: 'answered' | 'dropped' | 'aborted' | 'pending';
  served?: Served;
  /** the rule that rewrote it */
  rule?: string;
  /** simulated seconds from the world start when the request arrived */
  readonly at: number;
  /** the simulated instant the request arrived, ns since the epoch */
  readonly atNs: bigint;
}

/** A running proxy. */
export interface FaultProxy {
  readonly url: string;
  readonly log: ProxyLogEntry[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Starts a proxy on 127.0.0.1 in front of `sim`, applying `rules`. */
export async function startFaultProxy(sim: SimServer, rules: readonly ProxyRule[]): Promise<FaultProxy> {
  const upstream = new URL(sim.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const op = (req.url ?? '').split('/').at(-1) as OperationName;
    const at = Number(sim.world.elapsed()) / 1e9;
    const entry: ProxyLogEntry = { seq: log.length, op, request: body, outcome: 'pending', at, atNs: sim.world.now() };
    log.push(entry);
    const rule = rules.find((r) => at >= r.from && at < r.until && (r.ops === undefined || r.ops.includes(op)));
    let clientGone = false;
    res.on('close', () => {
      if (!res.writableFinished) clientGone = true;
    });
    const up = httpRequest({
      agent,
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host, 'content-length': String(body.length) },
    });
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    up.on('response', (ur) => {
      void readBody(ur).then(
        (ubody) => {
          let served: Served = {
            status: ur.statusCode ?? 0,
            contentType: String(ur.headers['content-type'] ?? ''),
            body: ubody,
          };
          if (rule !== undefined) {
            served = rule.mutate(served, { op, request: body, headers: req.headers });
            entry.rule = rule.name;
          }
          if (clientGone || res.destroyed) {
            entry.outcome = 'aborted';
            return;
          }
          entry.outcome = 'answered';
          entry.served = served;
          res.writeHead(served.status, {
            'content-type': served.contentType,
            'content-length': String(served.body.length),
          });
          res.end(served.body);
        },
        () => undefined,
      );
    });
    up.on('error', () => {
      if (clientGone) {
        entry.outcome = 'aborted';
        return;
      }
      // the simulator dropped the connection (its broker 0 is down): do the same
      entry.outcome = 'dropped';
      req.socket.destroy();
    });
    up.end(body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
