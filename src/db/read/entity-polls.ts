/** Finding, through the key indexes, the polls that saw one entity of a small resource. */
import type { SqlSession } from '../sql-session.ts';
import type { ResourceName } from '../../api/schema/resources.ts';
import { textFromSql } from '../encoding/bytes.ts';
import { hash52 } from '../encoding/dictionary.ts';
import { HistoryQueryError } from '../errors.ts';

function strId(sqlite: SqlSession, s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  for (const row of sqlite.prepare('SELECT id, s FROM str WHERE h = ?').all(hash52(s)) as {
    id: number;
    s: unknown;
  }[]) {
    if (textFromSql(row.s) === s) return row.id;
  }
  return undefined;
}

function need(key: Record<string, unknown>, fields: readonly string[], resource: string): void {
  for (const f of fields) {
    if (key[f] === undefined)
      throw new HistoryQueryError(`${resource} entities are identified by { ${fields.join(', ')} }: ${f} is missing`);
  }
}

/** Poll ids (unordered) whose rows may hold the entity `key` of `resource` (the caller re-checks). */
export function keyedPolls(sqlite: SqlSession, resource: ResourceName, key: Record<string, unknown>): number[] {
  const ids = (sql: string, ...params: unknown[]): number[] =>
    sqlite
      .prepare(sql)
      .pluck()
      .all(...params) as number[];
  switch (resource) {
    case 'shadow-links': {
      need(key, ['name'], resource);
      const name = strId(sqlite, key.name);
      return name === undefined ? [] : ids('SELECT poll FROM link_sample WHERE name = ?', name);
    }
    case 'shadow-tasks': {
      need(key, ['shadowLinkName', 'name', 'brokerId', 'shard'], resource);
      const link = strId(sqlite, key.shadowLinkName);
      const name = strId(sqlite, key.name);
      if (link === undefined || name === undefined) return [];
      return ids(
        'SELECT DISTINCT poll FROM shadow_task_sample WHERE link = ? AND name = ? AND broker_id = ? AND shard = ?',
        link,
        name,
        Number(key.brokerId),
        Number(key.shard),
      );
    }
    case 'shadow-topics':
    case 'shadow-partitions': {
      const fields =
        resource === 'shadow-topics' ? ['shadowLinkName', 'name'] : ['shadowLinkName', 'topicName', 'partitionId'];
      need(key, fields, resource);
      const link = strId(sqlite, key.shadowLinkName);
      const name = strId(sqlite, resource === 'shadow-topics' ? key.name : key.topicName);
      if (link === undefined || name === undefined) return [];
      return ids('SELECT DISTINCT poll FROM shadow_topic_sample WHERE link = ? AND name = ?', link, name);
    }
    case 'upgrade':
      return ids(`SELECT id FROM poll WHERE operation = 'GetUpgradeStatus' AND ok = 1`);
    case 'upgrade-members':
      need(key, ['nodeId'], resource);
      return ids('SELECT DISTINCT poll FROM upgrade_member_sample WHERE node_id = ?', Number(key.nodeId));
    case 'iceberg-topics':
    case 'iceberg-partitions': {
      need(key, resource === 'iceberg-topics' ? ['topic'] : ['topic', 'partition'], resource);
      const topic = strId(sqlite, key.topic);
      return topic === undefined ? [] : ids('SELECT DISTINCT poll FROM iceberg_topic_sample WHERE topic = ?', topic);
    }
    default:
      throw new HistoryQueryError(`entity history of ${resource} is read another way`);
  }
}
