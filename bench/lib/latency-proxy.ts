// A loopback TCP proxy that delays every chunk by a fixed time in each direction: a database
// "farther away" than loopback, for measuring what round trips cost at a given latency.
//
// Run: node --import tsx bench/lib/latency-proxy.ts LISTEN_PORT TARGET_PORT DELAY_MS
// e.g. node --import tsx bench/lib/latency-proxy.ts 15432 5432 1, then
//      FLIGHTREC_BENCH_PG=postgres://postgres@127.0.0.1:15432/postgres node scripts/bench.mjs bench/store-pg.bench.ts
// Listens on 127.0.0.1 only and connects to 127.0.0.1 only. Order is kept: each direction's
// chunks leave in the order they came, each DELAY_MS after its arrival.
import { createServer, connect, type Socket } from 'node:net';

const [listenText, targetText, delayText] = process.argv.slice(2);
const listenPort = Number(listenText);
const targetPort = Number(targetText);
const delayMs = Number(delayText);
if (!Number.isInteger(listenPort) || !Number.isInteger(targetPort) || !(delayMs >= 0)) {
  process.stderr.write('usage: latency-proxy.ts LISTEN_PORT TARGET_PORT DELAY_MS\n');
  process.exit(2);
}

/** Forwards `from` to `to`, each chunk `delayMs` after it arrived. */
function delayed(from: Socket, to: Socket): void {
  from.on('data', (chunk: Buffer) => {
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, delayMs);
  });
  from.on('end', () => setTimeout(() => to.end(), delayMs));
  from.on('error', () => to.destroy());
}

const server = createServer((client) => {
  client.setNoDelay(true);
  const upstream = connect({ host: '127.0.0.1', port: targetPort });
  upstream.setNoDelay(true);
  delayed(client, upstream);
  delayed(upstream, client);
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});
server.listen(listenPort, '127.0.0.1', () => {
  process.stderr.write(`127.0.0.1:${listenPort} -> 127.0.0.1:${targetPort}, ${delayMs} ms each way\n`);
});
