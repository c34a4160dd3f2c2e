/**
 * The collector's start-up lines: per cluster, what it polls, on which schedules and into
 * which database, so a user does not stare at silence until the first round; and why the
 * shadow operations are skipped when no shadow link is configured.
 */
import type { OperationName } from '../api/schema/operations.ts';
import type { ClusterConfig } from './config.ts';
import { targetsOf } from './poller.ts';
import { OPERATION_ORDER } from './schedule.ts';

const SHADOW_OPS: readonly OperationName[] = ['GetShadowLink', 'ListShadowTopics', 'GetShadowTopic'];

/** A cron expression in words where it is a common one (`every 30s`, `every minute`), else quoted. */
export function describeCron(expression: string): string {
  const f = expression.trim().split(/\s+/);
  const [sec, min, hour, day, month, dow] = f.length === 5 ? ['0', ...f] : f;
  const rest = [day, month, dow].every((x) => x === '*');
  if (rest && hour === '*' && min === '*') {
    if (sec === '*') return 'every second';
    const n = /^\*\/([0-9]+)$/.exec(sec ?? '')?.[1];
    if (n !== undefined) return `every ${n}s`;
  }
  if (rest && hour === '*' && /^[0-9]+$/.test(sec ?? '')) {
    if (min === '*') return 'every minute';
    const n = /^\*\/([0-9]+)$/.exec(min ?? '')?.[1];
    if (n !== undefined) return `every ${n}m`;
  }
  return `on "${expression}"`;
}

/** The operations polled, grouped by schedule: `GetUpgradeStatus, GetIcebergStatus every minute`. */
function scheduleText(cluster: ClusterConfig, once: boolean): string {
  const ops = OPERATION_ORDER.filter((op) => cluster.schedules[op] !== null && targetsOf(op, cluster).length > 0);
  if (ops.length === 0) return 'nothing (every schedule is off or has nothing to ask)';
  if (once) return `${ops.join(', ')} once`;
  const byWhen = new Map<string, OperationName[]>();
  for (const op of ops) {
    const when = describeCron(cluster.schedules[op]!);
    byWhen.set(when, [...(byWhen.get(when) ?? []), op]);
  }
  return [...byWhen.entries()].map(([when, list]) => `${list.join(', ')} ${when}`).join('; ');
}

/** The start-up line of one cluster. */
export function startupLine(cluster: ClusterConfig, store: string, once: boolean): string {
  const links = cluster.shadowLinks.length;
  const topics = cluster.shadowLinks.reduce((n, l) => n + l.topics.length, 0);
  const shadow =
    links === 0 ? '' : ` (${links} shadow link${links === 1 ? '' : 's'}, ${topics} topic${topics === 1 ? '' : 's'})`;
  return `${cluster.name}: ${once ? 'polling' : 'recording'} ${cluster.baseUrl} into ${store}: ${scheduleText(cluster, once)}${shadow}`;
}

/** Why shadow operations are not polled on a cluster, or undefined when they are (or are switched off). */
export function shadowSkipLine(cluster: ClusterConfig): string | undefined {
  const skipped = SHADOW_OPS.filter((op) => cluster.schedules[op] !== null && targetsOf(op, cluster).length === 0);
  if (skipped.length === 0) return undefined;
  const why =
    cluster.shadowLinks.length === 0
      ? 'no shadow link is configured (the API has no operation that lists them): name them with --link LINK[:TOPIC,...] or shadowLinks in the config'
      : 'no shadow topic is named under the links: add them as --link LINK:TOPIC,... or topics in the config';
  return `${cluster.name}: skipped ${skipped.join(', ')}: ${why}`;
}
