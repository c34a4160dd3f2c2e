/**
 * How many samples the readers give of the resources several operations report (shadow topics
 * and partitions): one per entity per round (sample-rounds.ts), counted in SQL over the rounds
 * worked out from the poll log. What `db stats` calls their samples; their stored rows are more.
 */
import type { SqlSession } from '../sql-session.ts';
import { roundsOf, SHADOW_PRECEDENCE, type PollTiming } from './sample-rounds.ts';

/** Samples of shadow topics and of shadow partitions: distinct (round, entity) over the store. */
export function mergedSampleCounts(sqlite: SqlSession): { topics: number; partitions: number } {
  const rows = sqlite
    .prepare(
      `SELECT cluster_id, id, operation, target, scheduled_at, started_at FROM poll
       WHERE ok = 1 AND operation IN (SELECT value FROM json_each(?, '$')) ORDER BY cluster_id, started_at, id`,
    )
    .raw()
    .safeIntegers()
    .all(JSON.stringify(SHADOW_PRECEDENCE)) as [bigint, bigint, string, string, bigint, bigint][];
  if (rows.length === 0) return { topics: 0, partitions: 0 };
  const ids: string[] = [];
  const rounds: number[] = [];
  let offset = 0;
  for (let i = 0; i < rows.length;) {
    const cluster = rows[i]![0];
    const polls: PollTiming[] = [];
    for (; i < rows.length && rows[i]![0] === cluster; i++) {
      const [, id, operation, target, scheduledTime, startTime] = rows[i]!;
      polls.push({ id, operation, target, scheduledTime, startTime });
    }
    const own = roundsOf(polls);
    polls.forEach((p, j) => {
      ids.push(String(p.id));
      rounds.push(offset + (own[j] as number));
    });
    offset += Math.max(...own) + 1;
  }
  // poll ids travel as JSON numbers: exact (PostgreSQL's are below 2^53 until the year 2^21)
  const params = [`[${ids.join(',')}]`, JSON.stringify(rounds)];
  const count = (sql: string): number =>
    Number(
      sqlite
        .prepare(sql)
        .pluck()
        .get(...params),
    );
  const rounded = 'json_each(?) p JOIN json_each(?) r ON r.key = p.key';
  return {
    topics: count(
      `SELECT count(*) FROM (SELECT DISTINCT r.value, t.link, t.name FROM ${rounded}
       JOIN shadow_topic_sample t ON t.poll = p.value) AS d`,
    ),
    partitions: count(
      `SELECT count(*) FROM (SELECT DISTINCT r.value, t.link, t.name, s.partition_id FROM ${rounded}
       JOIN shadow_topic_sample t ON t.poll = p.value
       JOIN shadow_partition_sample s ON s.poll = t.poll AND s.topic_pos = t.pos) AS d`,
    ),
  };
}
