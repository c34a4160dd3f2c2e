/**
 * The simulated cluster over real HTTP: a node:http server on loopback serving the six
 * operations under a service prefix, validating requests as a Connect server does, honouring
 * Connect-Timeout-Ms, optional Basic/Bearer authentication, one ListKafkaConnections at a time,
 * and the API faults of the scenario.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  DEFAULT_SERVICE_PREFIX,
  type OperationName,
  type RequestOf,
  type ResponseOf,
} from '../api/schema/operations.ts';
import { operationCodecs } from '../api/wire/answers.ts';
import {
  authCheck,
  errorAnswer,
  parseBody,
  protocolCheck,
  routeTable,
  simErrorAnswer,
  timeoutOf,
  type RawAnswer,
  type SimAuth,
} from './connect.ts';
import { isSimError } from './errors.ts';
import { activeFaults, damageBody, replacingAnswer } from './faults.ts';
import { encodeAnswerBytes } from './fast-encode.ts';
import { brokersReached } from './list-connections.ts';
import { isUp } from './plan.ts';
import { hash } from './rng.ts';
import { loadScenario } from './scenario/load.ts';
import type { Scenario } from './scenario/types.ts';
import { createWorld, type SimWorld, type WorldDescription } from './world.ts';

/** Options of startSimServer. */
export interface SimServerOptions {
  /** an existing world (seed, scenario, connections and links are then ignored) */
  readonly world?: SimWorld;
  readonly seed?: number;
  /** absolute start of the world, ns since the epoch; default 2026-01-01T00:00:00Z */
  readonly startTime?: bigint;
  /** a Scenario, a built-in name or a file path */
  readonly scenario?: Scenario | string;
  /** default 127.0.0.1 */
  readonly host?: string;
  /** 0 (default) picks a free port */
  readonly port?: number;
  /** simulated seconds per real second (real clock); default 1 */
  readonly speed?: number;
  /** 'manual': time moves only through advance()/advanceTo(); default 'real' */
  readonly clock?: 'real' | 'manual';
  readonly servicePrefix?: string;
  readonly auth?: SimAuth;
  /** false: the cluster has no enterprise licence (ListKafkaConnections fails) */
  readonly licence?: boolean;
  readonly connections?: number;
  readonly links?: readonly string[];
  readonly brokers?: number;
  /** how long an overlapping ListKafkaConnections waits before 429, ms; default 3000-5000 */
  readonly overlapWaitMs?: number;
  /** extra processing time of every ListKafkaConnections, ms (to provoke overlaps); default 0 */
  readonly listLatencyMs?: number;
  /** how many answers lastAnswers keeps; default 50 (and at most 32 MiB of bodies) */
  readonly keepAnswers?: number;
}

/** One served answer. */
export interface ServedAnswer {
  /** undefined for an unknown path */
  readonly op: OperationName | undefined;
  /** the decoded request, when it was valid */
  readonly request: unknown;
  readonly status: number;
  readonly body: Buffer;
  /** simulated time of the answer, ns since the epoch */
  readonly at: bigint;
}

/** A running simulated cluster. */
export interface SimServer {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  readonly world: SimWorld;
  readonly scenario: Scenario;
  readonly servicePrefix: string;
  /** moves the simulated clock forward (manual clock) */
  advance(seconds: number): void;
  /** moves the simulated clock to an absolute time, ns (manual clock) */
  advanceTo(tNs: bigint): void;
  /** answers served so far (errors included) */
  served(): number;
  /** the most recent answers, oldest first */
  readonly lastAnswers: ServedAnswer[];
  /** calls fn after every answer; returns a function that removes it */
  onAnswer(fn: (op: OperationName | undefined, request: unknown, status: number, body: Buffer) => void): () => void;
  describe(): WorldDescription;
  close(): Promise<void>;
}

/** The operations served one call at a time per broker, by operation: the brokers a request reaches. */
const ONE_AT_A_TIME: { readonly [N in OperationName]?: (req: RequestOf<N>, brokers: readonly number[]) => number[] } = {
  ListKafkaConnections: (req, brokers) => brokersReached(req.filter, brokers) ?? [],
};

/** The answers the duplicate_uids fault rewrites, by operation: a tenth of the rows (at least one) listed twice. */
const DUPLICATED: { readonly [N in OperationName]?: (value: ResponseOf<N>) => ResponseOf<N> } = {
  ListKafkaConnections: (v) => {
    const again = v.connections.slice(0, Math.max(1, Math.ceil(v.connections.length / 10)));
    return { ...v, connections: [...v.connections, ...again] };
  },
};

/** lastAnswers keeps at most this many body bytes (the latest answer always). */
const KEEP_BYTES = 32 * 1024 * 1024;

/** Faults that rewrite a successful body. */
const DAMAGING = new Set(['malformed', 'truncated', 'oversize', 'wrong_type']);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref?.());

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Starts the simulated cluster; resolves once it listens. */
export async function startSimServer(opts: SimServerOptions = {}): Promise<SimServer> {
  const scenario = typeof opts.scenario === 'string' ? loadScenario(opts.scenario) : opts.scenario;
  const world =
    opts.world ??
    createWorld({
      seed: opts.seed ?? 1,
      scenario,
      connections: opts.connections,
      links: opts.links,
      brokers: opts.brokers,
      startTime: opts.startTime,
    });
  const prefix = opts.servicePrefix ?? DEFAULT_SERVICE_PREFIX;
  const routes = routeTable(prefix);
  const manual = opts.clock === 'manual';
  const speed = opts.speed ?? 1;
  const simStart = world.now();
  const realStart = performance.now();
  const overlapWait = opts.overlapWaitMs ?? 3000 + (hash(world.config.seed, 0x429) % 2001);
  const asked = world.config.brokers[0] ?? 0;
  const keep = opts.keepAnswers ?? 50;
  const lastAnswers: ServedAnswer[] = [];
  const hooks = new Set<(op: OperationName | undefined, request: unknown, status: number, body: Buffer) => void>();
  let served = 0;
  let kept = 0;
  let calls = 0;
  /** broker → the ListKafkaConnections call running on it */
  const listBusy = new Map<number, Promise<void>>();

  const tick = (): void => {
    if (!manual) world.advanceTo(simStart + BigInt(Math.floor((performance.now() - realStart) * speed * 1e3)) * 1000n);
  };

  const send = (res: ServerResponse, op: OperationName | undefined, request: unknown, a: RawAnswer): void => {
    if (res.writableEnded || res.destroyed) return;
    res.writeHead(a.status, { 'content-type': a.contentType, 'content-length': String(a.body.length), ...a.headers });
    res.end(a.body);
    served++;
    const rec: ServedAnswer = { op, request, status: a.status, body: a.body, at: world.now() };
    lastAnswers.push(rec);
    kept += a.body.length;
    while (lastAnswers.length > keep || (kept > KEEP_BYTES && lastAnswers.length > 1))
      kept -= (lastAnswers.shift() as ServedAnswer).body.length;
    for (const fn of hooks) fn(op, request, a.status, a.body);
  };

  const answer = async <N extends OperationName>(op: N, request: RequestOf<N>, call: number): Promise<RawAnswer> => {
    const t = Number(world.elapsed() / 1000n);
    const faults = activeFaults(world.scenario.events, op, t, world.config.seed, call);
    for (const f of faults) {
      if (f.kind === 'slow') await sleep(Number((f.event.delay ?? 30_000_000_000n) / 1_000_000n));
    }
    for (const f of faults) {
      const replaced = replacingAnswer(f);
      if (replaced !== undefined) return replaced;
    }
    let release: (() => void) | undefined;
    let locked: number[] = [];
    const brokersOf = ONE_AT_A_TIME[op];
    if (brokersOf !== undefined) {
      // one call at a time per broker: wait for the running ones, at most overlapWait, then 429
      const reached = brokersOf(request, world.config.brokers);
      const deadline = performance.now() + overlapWait;
      for (
        let busy = reached.find((b) => listBusy.has(b));
        busy !== undefined;
        busy = reached.find((b) => listBusy.has(b))
      ) {
        const left = deadline - performance.now();
        const freed =
          left > 0 &&
          (await Promise.race([(listBusy.get(busy) as Promise<void>).then(() => true), sleep(left).then(() => false)]));
        if (!freed && listBusy.has(busy)) {
          return errorAnswer(
            'resource_exhausted',
            `another ListKafkaConnections call is in progress on broker ${busy}; try again later`,
          );
        }
      }
      const done = new Promise<void>((r) => (release = r));
      locked = reached;
      for (const b of locked) listBusy.set(b, done);
    }
    try {
      if (release !== undefined && opts.listLatencyMs) await sleep(opts.listLatencyMs);
      tick();
      const value = world.answer(op, request, { licence: opts.licence });
      if (isSimError(value)) return simErrorAnswer(value);
      const duplicate = faults.some((f) => f.kind === 'duplicate_uids') ? DUPLICATED[op] : undefined;
      const bytes = encodeAnswerBytes(op, duplicate === undefined ? value : duplicate(value));
      const damaging = faults.filter((f) => DAMAGING.has(f.kind));
      if (damaging.length === 0) return { status: 200, contentType: 'application/json', body: bytes };
      let body = bytes.toString();
      let status = 200;
      for (const f of damaging) ({ status, body } = damageBody(f, body));
      return { status, contentType: 'application/json', body: Buffer.from(body) };
    } finally {
      if (release !== undefined) {
        for (const b of locked) listBusy.delete(b);
        release();
      }
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    tick();
    if (!isUp(world.plan, asked, Number(world.elapsed() / 1000n))) {
      req.socket.destroy();
      return;
    }
    const path = (req.url ?? '').split('?')[0] ?? '';
    const op = routes.get(path);
    if (op === undefined)
      return send(res, undefined, undefined, errorAnswer('unimplemented', `unknown procedure ${path}`, 404));
    const timeout = timeoutOf(req);
    if (typeof timeout === 'object') return send(res, op, undefined, timeout);
    const rejected = protocolCheck(req, op) ?? authCheck(req, opts.auth);
    if (rejected !== undefined) return send(res, op, undefined, rejected);
    const parsed = parseBody(body, op);
    if ('rejected' in parsed) return send(res, op, undefined, parsed.rejected);
    let request: RequestOf<OperationName>;
    try {
      request = operationCodecs[op].decodeRequest(parsed.json);
    } catch (err) {
      return send(
        res,
        op,
        undefined,
        errorAnswer('invalid_argument', `unmarshal into ${op}Request: ${(err as Error).message}`),
      );
    }
    const unknown = request.$unknown;
    if (unknown !== undefined) {
      return send(
        res,
        op,
        request,
        errorAnswer(
          'invalid_argument',
          `unmarshal into ${op}Request: unknown field ${JSON.stringify(Object.keys(unknown)[0])}`,
        ),
      );
    }
    const work = answer(op, request, calls++);
    if (timeout === undefined || timeout === 0) return send(res, op, request, await work);
    const expired = sleep(timeout).then(() =>
      errorAnswer('deadline_exceeded', `the operation timed out after ${timeout} ms`),
    );
    send(res, op, request, await Promise.race([work, expired]));
  };

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) =>
      send(res, undefined, undefined, errorAnswer('internal', `internal error: ${(err as Error).message}`)),
    );
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    baseUrl: `http://${host}:${addr.port}`,
    world,
    scenario: world.scenario,
    servicePrefix: prefix,
    advance: (seconds) => world.advanceBy(seconds),
    advanceTo: (tNs) => world.advanceTo(tNs),
    served: () => served,
    lastAnswers,
    onAnswer: (fn) => {
      hooks.add(fn);
      return () => hooks.delete(fn);
    },
    describe: () => world.describe(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
