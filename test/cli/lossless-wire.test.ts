/**
 * Issue 13, "done when" (property): answers of all six operations generated from the schema,
 * written as any protobuf JSON encoder may write them (any subset of fields present, defaults
 * written or left out, each width at its extremes, absent optional, one-of and nested members,
 * BOM-led, control-character and lone-surrogate strings, timestamps in years 1 and 9999 with
 * nanoseconds, negative and nanosecond durations, unknown fields such as 1e400), are served over
 * loopback HTTP, recorded by the real collector (`collect --once`), and given back by
 * `export` and `query -o json` field for field: presence included, nothing invented, no poll
 * refused.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseJsonLossless, stringifyJson, type JsonValue } from '../../src/api/codec/lossless-json.ts';
import { camelToSnake } from '../../src/api/schema/fields.ts';
import { OPERATION_NAMES, OPERATIONS, type OperationName, type ResponseOf } from '../../src/api/schema/operations.ts';
import { RESOURCES, type ResourceName } from '../../src/api/schema/resources.ts';
import type { ShadowTopic } from '../../src/api/schema/shadow-topic.ts';
import { decodeAnswer, encodeAnswerTree } from '../../src/api/wire/answers.ts';
import { encodeValue } from '../../src/api/wire/encode.ts';
import { main } from '../../src/cli/main.ts';
import { answer, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';
import { memoryIo } from '../helpers/memory-io.ts';
import { forEachEngine } from '../helpers/pg.ts';
import { compareMessage } from '../helpers/wire-compare.ts';
import { answerArb } from '../helpers/wire-gen.ts';

type Tree = { [key: string]: JsonValue };
const LINK = 'dr';
const TOPIC = 'orders';

const dir = mkdtempSync(join(tmpdir(), 'flightrec-lossless-'));
const bodies = new Map<OperationName, string>();
let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((req, res) =>
    answer(res, 200, bodies.get(req.path.split('/').at(-1) as OperationName) ?? '{}'),
  );
  writeFileSync(
    join(dir, 'flightrec.yaml'),
    `clusters:\n  - name: prod\n    baseUrl: ${server.url}\n    shadowLinks:\n      - name: ${LINK}\n        topics: [${TOPIC}]\n    connections:\n      fanout: false\n`,
  );
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const decodeUntyped = decodeAnswer as unknown as (op: OperationName, json: unknown) => Record<string, unknown>;
const encodeUntyped = encodeAnswerTree as unknown as (op: OperationName, v: unknown) => Tree;
/** What flightrec must give back for a body: the server-style form of what was present, as JSON. */
const canonical = (op: OperationName, body: string): Tree =>
  parseJsonLossless(stringifyJson(encodeUntyped(op, decodeUntyped(op, parseJsonLossless(body))))) as Tree;

async function cli(db: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo({ cwd: dir });
  const code = await main(['--db', db, '--config', join(dir, 'flightrec.yaml'), ...args], io);
  return { code, out: io.out(), err: io.err() };
}

/** The rows a resource shows for a poll of `op` that answered `tree` (canonical form), in answer order. */
/** A field of a tree as sent: its camelCase key, or the snake_case one. */
const field = (tree: Tree | undefined, name: string): JsonValue | undefined =>
  tree?.[name] ?? tree?.[camelToSnake(name)];
const messageAt = (tree: Tree | undefined, name: string): Tree => (field(tree, name) as Tree | undefined) ?? {};
const listAt = (tree: Tree | undefined, name: string): Tree[] => (field(tree, name) as Tree[] | undefined) ?? [];

function expectedRows(
  resource: ResourceName,
  op: OperationName,
  tree: Tree,
): { sent: Tree; row: Tree; schema: (typeof RESOURCES)[ResourceName]['schema'] }[] {
  // the decoded answer of `op`; each use below is guarded by the operation it belongs to
  const decoded = decodeUntyped(op, tree);
  const linkAnswer = (): ResponseOf<'GetShadowLink'> => decoded as ResponseOf<'GetShadowLink'>;
  const wire = (v: unknown, t: Parameters<typeof encodeValue>[0]): JsonValue =>
    parseJsonLossless(stringifyJson(encodeValue(t, v))) as JsonValue;
  const link = messageAt(tree, 'shadowLink');
  const topicsOf = (): { link: string; topics: Tree[]; decoded: readonly ShadowTopic[] } => {
    if (op === 'GetShadowLink')
      return {
        link: linkAnswer().shadowLink.name,
        topics: listAt(messageAt(link, 'status'), 'shadowTopics'),
        decoded: linkAnswer().shadowLink.status.shadowTopics,
      };
    if (op === 'ListShadowTopics')
      return {
        link: LINK,
        topics: listAt(tree, 'shadowTopics'),
        decoded: (decoded as ResponseOf<'ListShadowTopics'>).shadowTopics,
      };
    return {
      link: LINK,
      topics: [messageAt(tree, 'shadowTopic')],
      decoded: [(decoded as ResponseOf<'GetShadowTopic'>).shadowTopic],
    };
  };
  const schema = RESOURCES[resource].schema;
  switch (resource) {
    case 'connections':
      return listAt(tree, 'connections').map((c) => ({ sent: c, row: c, schema }));
    case 'shadow-links':
      return [{ sent: link, row: link, schema }];
    case 'shadow-tasks':
      return listAt(messageAt(link, 'status'), 'taskStatuses').map((t) => ({
        sent: t,
        row: { shadowLinkName: linkAnswer().shadowLink.name, ...t },
        schema,
      }));
    case 'shadow-topics': {
      const t = topicsOf();
      return t.topics.map((topic) => ({ sent: topic, row: { shadowLinkName: t.link, ...topic }, schema }));
    }
    case 'shadow-partitions': {
      const t = topicsOf();
      return t.topics.flatMap((topic, i) => {
        const d = t.decoded[i]!;
        return listAt(messageAt(topic, 'status'), 'partitionInformation').map((p, k) => {
          const dp = d.status.partitionInformation[k]!;
          const lag = wire(dp.sourceHighWatermark - dp.highWatermark, { kind: 'int64' });
          return { sent: p, row: { shadowLinkName: t.link, topicName: d.name, ...p, lag }, schema };
        });
      });
    }
    case 'upgrade':
      return [{ sent: tree, row: tree, schema }];
    case 'upgrade-members':
      return listAt(tree, 'members').map((m) => ({ sent: m, row: m, schema }));
    case 'iceberg-topics':
      return listAt(tree, 'topics').map((t) => ({ sent: t, row: t, schema }));
    case 'iceberg-partitions':
      return listAt(tree, 'topics').flatMap((t, i) => {
        const d = (decoded as ResponseOf<'GetIcebergStatus'>).topics[i]!;
        return listAt(t, 'partitions').map((p) => ({
          sent: p,
          row: { topic: d.topic, lifecycleState: d.lifecycleState, ...p },
          schema,
        }));
      });
    default:
      return [];
  }
}

const compareText = (a: Tree, b: Tree): number => {
  const x = stringifyJson(a);
  const y = stringifyJson(b);
  return x < y ? -1 : x > y ? 1 : 0;
};
const sorted = (rows: Tree[]): Tree[] => [...rows].sort(compareText);

const answersArb = fc.record(
  Object.fromEntries(OPERATION_NAMES.map((op) => [op, answerArb(op)])) as { [N in OperationName]: fc.Arbitrary<Tree> },
);

const TITLE = 'lossless against the wire: collect, then export and query give every answer back field for field';
forEachEngine(
  TITLE,
  (engine) => {
    it('holds for generated answers of all six operations', async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(answersArb, async (answers) => {
          run++;
          const db = await engine.target();
          for (const op of OPERATION_NAMES) bodies.set(op, stringifyJson(answers[op]));
          // 1. the real collector over loopback HTTP: no poll refused
          const collected = await cli(db, 'collect', '--once');
          expect(collected.err).not.toMatch(/FAILED|schema|not valid JSON/);
          expect(collected.code).toBe(0);
          // 2. export: every poll's answer is the canonical form of the body served, and the same fields as sent
          const out = join(dir, `${engine.name}-run${run}.json`);
          expect((await cli(db, 'export', '--out', out)).code).toBe(0);
          const bundle = parseJsonLossless(readFileSync(out)) as { polls: { poll: Tree; answer?: Tree }[] };
          const opOf = new Map<string, OperationName>();
          expect(bundle.polls.map((p) => p.poll.operation).sort()).toEqual([...OPERATION_NAMES].sort());
          for (const p of bundle.polls) {
            const op = p.poll.operation as OperationName;
            opOf.set(String(p.poll.id), op);
            const body = bodies.get(op)!;
            expect(p.answer, `${op}: ${body}`).toEqual(canonical(op, body));
            expect(compareMessage(OPERATIONS[op].response, answers[op], p.answer!), `${op}: ${body}`).toEqual([]);
          }
          // 3. query -o json, every resource: the rows of each poll are the answer's, field for field
          // (each operation's own samples: `--source`, since the readers merge the shadow operations' rounds)
          for (const resource of Object.keys(RESOURCES).filter((r) => r !== 'polls') as ResourceName[]) {
            const byPoll = new Map<string, Tree[]>();
            for (const source of RESOURCES[resource].operations as readonly OperationName[]) {
              const q = await cli(
                db,
                'query',
                resource,
                '--since',
                '-1d',
                '--until',
                'now',
                '--source',
                source,
                '-o',
                'json',
              );
              expect(q.err, resource).not.toContain('flightrec:');
              expect(q.code).toBe(0);
              const samples = (parseJsonLossless(q.out) as { samples: { pollId: string; row: Tree }[] }).samples;
              for (const s of samples) byPoll.set(s.pollId, [...(byPoll.get(s.pollId) ?? []), s.row]);
            }
            for (const [pollId, op] of opOf) {
              if (!(RESOURCES[resource].operations as readonly string[]).includes(op)) continue;
              const canon = canonical(op, bodies.get(op)!);
              const expected = expectedRows(resource, op, canon);
              const sentRows = expectedRows(resource, op, answers[op]);
              // query sorts rows by the resource's key: compare in one order (the rows' text)
              const got = sorted(byPoll.get(pollId) ?? []);
              const rows = expected.map((e) => e.row);
              const order = rows.map((_, i) => i).sort((a, b) => compareText(rows[a]!, rows[b]!));
              expect(got, `${resource} from ${op}: ${bodies.get(op)}`).toEqual(order.map((i) => rows[i]));
              order.forEach((i, k) => {
                const diffs = compareMessage(
                  RESOURCES[resource].schema,
                  sentRows[i]!.row,
                  got[k]!,
                  `${resource}[${i}]`,
                );
                expect(diffs, `${resource} from ${op}: ${bodies.get(op)}`).toEqual([]);
              });
            }
          }
        }),
        { numRuns: engine.propertyRuns(30), seed: 130013, endOnFailure: true },
      );
    }, 120_000);
  },
  { onPglite: false },
);
