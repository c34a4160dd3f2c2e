/** Child process of crash.test.ts: writes connection polls forever until it is killed. */
import { createHistoryWriter, openDatabase } from '../../src/db/index.ts';
import { ConnectionWorld } from '../helpers/connection-answers.ts';

const path = process.argv[2]!;
const db = openDatabase(path);
const writer = createHistoryWriter(db, { batchFrames: 3 });
const world = new ConnectionWorld({ connections: 400, churn: 0.05, seed: 77 });
for (let i = 0; ; i++) {
  const { at, answer } = world.next();
  writer.writePoll({
    cluster: 'prod',
    operation: 'ListKafkaConnections',
    target: '',
    request: { filter: '', orderBy: '', pageSize: 0 },
    round: `r${i}`,
    attempt: 1,
    scheduledAt: at,
    startedAt: at,
    endedAt: at,
    outcome: { ok: true, answer, bytes: 0 },
  });
  process.stdout.write(`${i}\n`);
}
