// The simulated cluster of bench/soak.bench.ts in a process of its own, so that the soak's peak
// RSS is the collector's alone. Forked with an IPC channel (`startSoakSim` below); the simulator's
// clock is manual and moves only when the bench says so, over IPC, before each round (accelerated
// time: nothing waits in real time).
//
// Protocol (JSON over the IPC channel, ns as decimal strings):
//   child → parent  { type: 'ready', baseUrl, links, topics, nowNs }   once the server listens
//   parent → child  { type: 'advanceTo', ns }   → { type: 'at', nowNs }  (the clock never goes back)
//   parent → child  { type: 'rss' }             → { type: 'rss', peakBytes }  (this process's maxRSS)
//   parent → child  { type: 'close' }           the server closes and the process ends
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A shadow topic of the simulated cluster, as the collector's config names it. */
export interface SoakSimTopic {
  readonly link: string;
  readonly topic: string;
}

/** The forked simulator as the bench drives it. */
export interface SoakSim {
  readonly baseUrl: string;
  readonly links: readonly string[];
  readonly topics: readonly SoakSimTopic[];
  /** the simulated time, ns since the epoch (as of the last answer from the child) */
  nowNs(): bigint;
  /** moves the child's clock to `ns` (never back) and resolves once it has moved */
  advanceTo(ns: bigint): Promise<void>;
  /** the child's peak RSS in bytes (resourceUsage().maxRSS) */
  peakRss(): Promise<number>;
  /** stops the server and waits for the process to end */
  close(): Promise<void>;
}

/** What the child sends. */
type ChildMessage =
  | {
      readonly type: 'ready';
      readonly baseUrl: string;
      readonly links: string[];
      readonly topics: SoakSimTopic[];
      readonly nowNs: string;
    }
  | { readonly type: 'at'; readonly nowNs: string }
  | { readonly type: 'rss'; readonly peakBytes: number };

/** What the parent sends. */
type ParentMessage =
  { readonly type: 'advanceTo'; readonly ns: string } | { readonly type: 'rss' } | { readonly type: 'close' };

/** The options of the simulator the child starts. */
export interface SoakSimOptions {
  readonly seed: number;
  readonly connections: number;
  readonly startNs: bigint;
}

/** Forks this file as the simulator process (through tsx) and waits until it serves. */
export async function startSoakSim(opts: SoakSimOptions): Promise<SoakSim> {
  // the bench bundled (bench/lib/soak-built.ts) names this file's source: its own URL is the bundle's
  const child = fork(
    process.env.SOAK_SIM_FILE ?? fileURLToPath(import.meta.url),
    [String(opts.seed), String(opts.connections), String(opts.startNs)],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  // one request at a time: the bench awaits each answer before it sends the next
  let waiting: { readonly type: string; readonly resolve: (m: ChildMessage) => void } | undefined;
  let failed: Error | undefined;
  const fail = (err: Error): void => {
    failed ??= err;
  };
  child.on('error', fail);
  child.on('exit', (code) => fail(new Error(`the simulator process exited (code ${code})`)));
  const ready = new Promise<ChildMessage & { type: 'ready' }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the simulator process exited before it served (code ${code})`)));
    child.once('message', (m: ChildMessage) => {
      if (m.type === 'ready') resolve(m);
      else reject(new Error(`the simulator process sent ${m.type} before ready`));
    });
  });
  const first = await ready;
  child.on('message', (m: ChildMessage) => {
    const w = waiting;
    if (w === undefined || w.type !== m.type) {
      fail(new Error(`unexpected message from the simulator process: ${m.type}`));
      return;
    }
    waiting = undefined;
    w.resolve(m);
  });
  const ask = <T extends ChildMessage['type']>(msg: ParentMessage, reply: T): Promise<ChildMessage & { type: T }> => {
    if (failed !== undefined) return Promise.reject(failed);
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`the simulator process exited (code ${code})`));
      child.once('exit', onExit);
      waiting = {
        type: reply,
        resolve: (m) => {
          child.off('exit', onExit);
          resolve(m as ChildMessage & { type: T });
        },
      };
      child.send(msg);
    });
  };
  let now = BigInt(first.nowNs);
  return {
    baseUrl: first.baseUrl,
    links: first.links,
    topics: first.topics,
    nowNs: () => now,
    advanceTo: async (ns) => {
      if (ns <= now) return;
      now = BigInt((await ask({ type: 'advanceTo', ns: String(ns) }, 'at')).nowNs);
    },
    peakRss: async () => (await ask({ type: 'rss' }, 'rss')).peakBytes,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'close' } satisfies ParentMessage);
      await exited;
    },
  };
}

/** The child: serves the simulator and obeys the parent. */
async function serve(): Promise<void> {
  const { startSimServer } = await import('../../src/sim/index.ts');
  const [seed, connections, startNs] = process.argv.slice(2);
  const sim = await startSimServer({
    host: '127.0.0.1',
    port: 0,
    clock: 'manual',
    seed: Number(seed),
    connections: Number(connections),
    startTime: BigInt(startNs!),
  });
  const world = sim.describe();
  const send = (m: ChildMessage): void => void process.send?.(m);
  send({
    type: 'ready',
    baseUrl: sim.baseUrl,
    links: world.links,
    topics: world.topics,
    nowNs: String(sim.world.now()),
  });
  process.on('message', (m: ParentMessage) => {
    if (m.type === 'advanceTo') {
      sim.advanceTo(BigInt(m.ns));
      send({ type: 'at', nowNs: String(sim.world.now()) });
    } else if (m.type === 'rss') {
      send({ type: 'rss', peakBytes: process.resourceUsage().maxRSS * 1024 });
    } else {
      void sim.close().then(() => process.disconnect?.());
    }
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send !== undefined) await serve();
