// The simulated fleet of bench/fleet-pg.bench.ts, in a process of its own (so that the
// collector's CPU time is its own): `node --import tsx bench/lib/fleet-sims.ts CLUSTERS CONNECTIONS`
// starts that many simulated clusters on 127.0.0.1 (real clock, one seed each) and prints one
// JSON line on stdout: [{ name, baseUrl, links: [{ name, topics }] }]. It serves until SIGTERM or SIGINT.
import { startSimServer, type SimServer } from '../../src/sim/index.ts';

const clusters = Number(process.argv[2] ?? 20);
const connections = Number(process.argv[3] ?? 2000);
if (!(clusters >= 1 && connections >= 1)) throw new Error('usage: fleet-sims.ts CLUSTERS CONNECTIONS');

const servers: SimServer[] = [];
const described = [];
for (let i = 0; i < clusters; i++) {
  const sim = await startSimServer({ host: '127.0.0.1', port: 0, clock: 'real', seed: 100 + i, connections });
  servers.push(sim);
  const world = sim.describe();
  described.push({
    name: `fleet-${String(i + 1).padStart(2, '0')}`,
    baseUrl: sim.baseUrl,
    links: world.links.map((name) => ({
      name,
      topics: world.topics.filter((t) => t.link === name).map((t) => t.topic),
    })),
  });
}
process.stdout.write(`${JSON.stringify(described)}\n`);

const stop = (): void => {
  void Promise.all(servers.map((s) => s.close())).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
