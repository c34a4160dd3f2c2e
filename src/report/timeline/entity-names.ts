/**
 * The entities a timeline can be asked about (`--for KIND/NAME`): which events concern one (its
 * own, its children's, related ones, and those whose evidence names it), which names of a kind
 * the recording holds, and the nearest known names to an unknown one.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import type { ResourceName } from '../../api/schema/resources.ts';
import type { StoredConnFrame } from './conn-frame.ts';
import type { TimelineSource } from './timeline.ts';
import type { TimelineEvent } from './types.ts';

/** The kinds of entity timeline events are about. */
export const ENTITY_KINDS = [
  'api',
  'broker',
  'client',
  'group',
  'iceberg-catalog',
  'iceberg-topic',
  'link',
  'listener',
  'principal',
  'shadow-topic',
  'software',
  'task',
  'upgrade',
] as const;

/** Evidence keys whose values name an entity of a kind (lists such as `a (12), b (3)` included). */
const EVIDENCE_KEYS: Readonly<Record<string, readonly string[]>> = {
  client: ['clientId', 'clients'],
  principal: ['userPrincipal', 'principal', 'principals'],
  listener: ['listenerName', 'listener', 'listeners'],
  group: ['groupId', 'group', 'groups'],
  broker: ['nodeId', 'broker', 'brokers'],
  software: ['clientSoftwareName', 'software'],
};

/** Most names of one kind kept while looking for suggestions. */
const MAX_NAMES = 10_000;

/** Splits `KIND/NAME` at its first slash. */
export function splitEntity(ref: string): { kind: string; name: string } {
  const slash = ref.indexOf('/');
  return slash < 0 ? { kind: ref, name: '' } : { kind: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

/** True when `ref` is `target` or one of its children (`link/a` covers `link/a/b`). */
function covers(target: string, ref: string): boolean {
  return ref === target || ref.startsWith(`${target}/`);
}

/** The names an evidence value lists: `a (12), b (3), +4 more` gives a and b; a plain value gives itself. */
export function namesInValue(value: string): string[] {
  return value
    .split(', ')
    .map((part) => part.replace(/ \(\d+\)$/, ''))
    .filter((part) => part !== '' && !/^\+\d+ more$/.test(part));
}

/** True when an event's evidence names the target (`client/svc-legacy-client` in `clients: svc-legacy-client (150)`). */
export function evidenceNames(e: TimelineEvent, target: string): boolean {
  const { kind, name } = splitEntity(target);
  const keys = EVIDENCE_KEYS[kind];
  if (keys === undefined || name === '') return false;
  for (const values of [e.evidence.before, e.evidence.during ?? {}, e.evidence.after]) {
    for (const key of keys) {
      const v = values[key];
      if (
        v !== undefined &&
        namesInValue(v).some((n) => n === name || (kind === 'software' && name.startsWith(`${n}/`)))
      )
        return true;
    }
  }
  return false;
}

/** True when an event concerns `target` (`KIND/NAME`): its entity or a related one (or a child of either), or its evidence names it. */
export function eventConcerns(e: TimelineEvent, target: string): boolean {
  return covers(target, e.entity) || e.related.some((r) => covers(target, r)) || evidenceNames(e, target);
}

/** What the recording holds of one kind: whether `target` is among it, and (when not) the names seen. */
export interface RecordedNames {
  readonly found: boolean;
  /** `KIND/NAME` references of the kind (at most 10,000), when the target was not found */
  readonly names: readonly string[];
}

type NameSource = Pick<TimelineSource, 'polls' | 'samples' | 'connectionFrames'>;

/** The entity names one connection row gives, by kind. */
function connectionNames(
  kind: string,
  c: Pick<
    KafkaConnection,
    'clientId' | 'nodeId' | 'groupId' | 'listenerName' | 'clientSoftwareName' | 'clientSoftwareVersion'
  > & { authenticationInfo: { userPrincipal: string } },
): string[] {
  switch (kind) {
    case 'client':
      return [c.clientId];
    case 'broker':
      return [String(c.nodeId)];
    case 'group':
      return c.groupId === '' ? [] : [c.groupId];
    case 'listener':
      return [c.listenerName];
    case 'principal':
      return c.authenticationInfo.userPrincipal === '' ? [] : [c.authenticationInfo.userPrincipal];
    case 'software':
      return [`${c.clientSoftwareName}/${c.clientSoftwareVersion}`];
    default:
      return [];
  }
}

/** The rows of the resource that names entities of a kind, and how to name them. */
function smallResource(
  kind: string,
): { resource: ResourceName; names: (row: Record<string, unknown>) => string[] } | undefined {
  switch (kind) {
    case 'link':
      return { resource: 'shadow-links', names: (r) => [String(r.name)] };
    case 'shadow-topic':
      return { resource: 'shadow-topics', names: (r) => [`${String(r.shadowLinkName)}/${String(r.name)}`] };
    case 'task':
      return {
        resource: 'shadow-tasks',
        names: (r) => [`${String(r.shadowLinkName)}/${String(r.name)}/${String(r.brokerId)}/${String(r.shard)}`],
      };
    case 'iceberg-topic':
      return { resource: 'iceberg-topics', names: (r) => [String(r.topic)] };
    case 'iceberg-catalog':
      return { resource: 'iceberg-topics', names: () => ['cluster'] };
    case 'upgrade':
      return { resource: 'upgrade', names: () => ['cluster'] };
    default:
      return undefined;
  }
}

/**
 * Looks for `target` (`KIND/NAME`) in what the recording holds between `since` and `until`:
 * stops at the first sight of it, else returns the names of its kind seen (for suggestions).
 */
export function recordedNames(
  source: NameSource,
  target: string,
  q: { cluster?: string; since: bigint; until: bigint },
): RecordedNames {
  const { kind } = splitEntity(target);
  const seen = new Set<string>();
  const add = (names: readonly string[]): boolean => {
    for (const n of names) {
      const ref = `${kind}/${n}`;
      if (covers(target, ref)) return true;
      if (seen.size < MAX_NAMES) seen.add(ref);
    }
    return false;
  };
  if (kind === 'api') {
    for (const p of source.polls({ cluster: q.cluster, since: q.since, until: q.until })) {
      if (add(p.target === '' ? [p.operation] : [p.operation, `${p.operation}/${p.target}`]))
        return { found: true, names: [] };
    }
  } else if (kind in EVIDENCE_KEYS) {
    if (source.connectionFrames !== undefined) {
      for (const f of source.connectionFrames(q) as Iterable<StoredConnFrame>) {
        for (const v of f.versions) if (add(connectionNames(kind, v))) return { found: true, names: [] };
      }
    } else {
      for (const s of source.samples('connections', q))
        if (add(connectionNames(kind, s.row as KafkaConnection))) return { found: true, names: [] };
    }
    if (kind === 'broker') {
      for (const s of source.samples('upgrade-members', q))
        if (add([String((s.row as { nodeId: number }).nodeId)])) return { found: true, names: [] };
    }
  } else {
    const small = smallResource(kind);
    if (small !== undefined) {
      for (const s of source.samples(small.resource, q))
        if (add(small.names(s.row as Record<string, unknown>))) return { found: true, names: [] };
    }
  }
  return { found: false, names: [...seen] };
}

/** Edit distance of two strings (each cut to 128 characters), stopping early above `max`. */
function distance(a: string, b: string, max: number): number {
  const x = a.slice(0, 128);
  const y = b.slice(0, 128);
  if (Math.abs(x.length - y.length) > max) return max + 1;
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= y.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[y.length]!;
}

/** The known names nearest to an unknown one: those containing it or contained in it first, then by edit distance. */
export function nearestNames(target: string, names: readonly string[], n = 3): string[] {
  const t = splitEntity(target).name.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const name of names) {
    const l = splitEntity(name).name.toLowerCase();
    const score = l.includes(t) || t.includes(l) ? 0 : distance(t, l, Math.max(3, t.length >> 1));
    if (score <= Math.max(3, t.length >> 1)) scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, n).map((s) => s.name);
}
