/**
 * `diff --from T1 --to T2`: per resource, the entities added, removed and changed between the
 * states observed at two instants, each change with its field path and old and new values;
 * counters as deltas and rates; shadow-link configuration changes spelled out. An instant
 * without a usable successful poll is reported as unobserved, never as "nothing changed".
 */
import { RESOURCES, type PollRow, type ResourceName } from '../api/schema/resources.ts';
import type { ShadowLink } from '../api/schema/shadow-link.ts';
import { compileOrderBy } from '../filter/index.ts';
import { COLUMN_MODELS } from './columns/index.ts';
import { compareConnections, connectionChangeCounts, type ConnectionChange } from './connection-changes.ts';
import { describeShadowLinkChanges } from './diff-describe.ts';
import {
  changeClass,
  DIFF_CLASSES,
  DIFF_RULES,
  diffRows,
  type DiffClass,
  type FieldChange,
  type MetricUnit,
} from './diff-fields.ts';
import { secondsBetween } from './format-units.ts';
import { freshnessOf } from './freshness.ts';
import { failuresSince, type ReportReader } from './query.ts';

export type { DiffClass, FieldChange, MetricUnit } from './diff-fields.ts';
export { DIFF_CLASSES } from './diff-fields.ts';

/** Options of diffStates; times in ns since the epoch. */
export interface DiffOptions {
  readonly from: bigint;
  readonly to: bigint;
  /** the resources to compare; default: every resource ever recorded (polls excluded) */
  readonly resources?: readonly ResourceName[];
  readonly cluster?: string;
  /**
   * the classes of difference to report (default all): `state` (entities added or removed, state
   * and attribute changes), `config` (configuration), `values` (counters and gauges that moved)
   */
  readonly only?: readonly DiffClass[];
}

/** What is known of a resource at one instant. */
export interface Observation {
  /** the instant asked about */
  readonly at: bigint;
  /** the latest successful poll at or before `at` */
  readonly poll: PollRow | undefined;
  /** failed polls of the resource's operations up to `at` not followed by a success of the same target */
  readonly failures: number;
  readonly lastFailure?: PollRow;
  /** true when a successful poll answers for `at` and nothing failed since */
  readonly observed: boolean;
  /** the newest successful poll of one of its operations is older than twice its schedule interval at `at` (or none answered) */
  readonly stale: boolean;
}

/** An entity by its key, with a short label and its row. */
export interface EntityRef {
  /** key values joined by `/` (`cluster` for singletons) */
  readonly key: string;
  /** terminal-safe identity for people */
  readonly label: string;
  readonly row: object;
}

/** An entity present at both instants that differs in the classes asked for. */
export interface EntityChange extends EntityRef {
  readonly oldRow: object;
  /** state and configuration changes (as asked for) */
  readonly changes: FieldChange[];
  /** counters that moved (resets included): old, new, delta and rate (when values are asked for) */
  readonly counters: FieldChange[];
  /** gauges that moved (lag, idle time, one-minute statistics): old, new and delta (when values are asked for) */
  readonly gauges: FieldChange[];
}

/** A counter or gauge summed over the entities present at both instants. */
export interface MetricTotal {
  readonly path: string;
  readonly kind: 'counter' | 'gauge';
  readonly unit: MetricUnit;
  readonly oldSum: bigint;
  readonly newSum: bigint;
  readonly delta: bigint;
  /** counters: delta per second between the two polls */
  readonly ratePerSecond?: number;
  /** entities whose value moved */
  readonly moving: number;
}

/** The comparison of one resource. */
export interface ResourceDiff {
  readonly resource: ResourceName;
  readonly from: Observation;
  readonly to: Observation;
  /** both instants observed; when false the lists below are empty and say nothing */
  readonly observed: boolean;
  /** seconds between the two polls compared */
  readonly elapsedSeconds: number;
  readonly added: EntityRef[];
  readonly removed: EntityRef[];
  readonly changed: EntityChange[];
  /** entities present at both instants without a difference of the classes asked for */
  readonly unchanged: number;
  readonly totals: MetricTotal[];
  /**
   * connections only: how many are new, closed, vanished, expired (and moving, idle), by the one
   * definition the browser and the timeline use; `added` are the new ones, `removed` the vanished
   * and the expired ones
   */
  readonly connectionChanges?: Readonly<Record<ConnectionChange, number>>;
}

/** The result of a diff. */
export interface DiffResult {
  readonly from: bigint;
  readonly to: bigint;
  readonly resources: ResourceDiff[];
  /** resources left out because nothing of them was ever recorded (only when not asked for by name) */
  readonly skipped: ResourceName[];
  /** added + removed + changed entities over all resources */
  readonly differences: number;
  /** the classes of difference compared */
  readonly only: readonly DiffClass[];
  /** resources for which one instant (or both) was not observed */
  readonly unobserved: ResourceName[];
}

/** Bad diff options (polls as a resource, from after to). */
export class DiffOptionsError extends Error {
  override readonly name = 'DiffOptionsError';
}

/** The resources diff compares by default, in display order. */
export const DIFF_RESOURCES: readonly ResourceName[] = (Object.keys(RESOURCES) as ResourceName[]).filter(
  (r) => r !== 'polls',
);

/** Compares the states at two instants. */
export function diffStates(reader: ReportReader, opts: DiffOptions): DiffResult {
  if (opts.from > opts.to) throw new DiffOptionsError('--from is after --to');
  if (opts.resources?.includes('polls')) throw new DiffOptionsError('polls have no state to compare; use query polls');
  const named = opts.resources !== undefined && opts.resources.length > 0;
  const wanted = named ? [...new Set(opts.resources)] : DIFF_RESOURCES;
  const skipped = named ? [] : wanted.filter((r) => !everRecorded(reader, r, opts.cluster));
  const resources = wanted.filter((r) => !skipped.includes(r)).map((r) => diffResource(reader, r, opts));
  let differences = 0;
  for (const r of resources) differences += r.added.length + r.removed.length + r.changed.length;
  return {
    from: opts.from,
    to: opts.to,
    resources,
    skipped,
    differences,
    only: classesOf(opts),
    unobserved: resources.filter((r) => !r.observed).map((r) => r.resource),
  };
}

function classesOf(opts: DiffOptions): readonly DiffClass[] {
  return opts.only === undefined || opts.only.length === 0
    ? DIFF_CLASSES
    : DIFF_CLASSES.filter((c) => opts.only!.includes(c));
}

function everRecorded(reader: ReportReader, resource: ResourceName, cluster: string | undefined): boolean {
  return RESOURCES[resource].operations.some((operation) => reader.polls({ cluster, operation, limit: 1 }).length > 0);
}

/**
 * What is known of a resource at `at`: its latest successful poll, and the polls of its
 * operations that failed up to `at` without a later success of the same operation and target.
 */
export function observe(
  reader: ReportReader,
  resource: ResourceName,
  at: bigint,
  cluster: string | undefined,
): { observation: Observation; rows: object[] } {
  const state = reader.stateAt(resource, at, { cluster });
  const { failures, lastFailure } = failuresSince(
    reader,
    resource,
    at,
    cluster,
    state.polls?.[0]?.startTime ?? state.poll?.startTime,
  );
  const observation: Observation = {
    at,
    poll: state.poll,
    failures,
    ...(lastFailure === undefined ? {} : { lastFailure }),
    observed: state.poll !== undefined && failures === 0,
    stale: freshnessOf(reader, state.polls ?? (state.poll === undefined ? [] : [state.poll]), at, cluster).stale,
  };
  return { observation, rows: state.rows };
}

function diffResource(reader: ReportReader, resource: ResourceName, opts: DiffOptions): ResourceDiff {
  const a = observe(reader, resource, opts.from, opts.cluster);
  const b = observe(reader, resource, opts.to, opts.cluster);
  const observed = a.observation.observed && b.observation.observed;
  const base = { resource, from: a.observation, to: b.observation, observed };
  if (!observed) return { ...base, elapsedSeconds: 0, added: [], removed: [], changed: [], unchanged: 0, totals: [] };
  const elapsedSeconds = secondsBetween(a.observation.poll!.startTime, b.observation.poll!.startTime);
  const model = COLUMN_MODELS[resource] as { label: (row: object) => string };
  const order = compileOrderBy('', { resource, dialect: 'extended' });
  const keyOf = keyFunction(resource);
  const before = new Map<string, object>();
  for (const row of a.rows) before.set(keyOf(row), row);
  const after = new Map<string, object>();
  for (const row of b.rows) after.set(keyOf(row), row);
  const byOrder = (x: [string, object], y: [string, object]): number => order.compare(x[1], y[1]);
  const ref = ([key, row]: [string, object]): EntityRef => ({ key, label: model.label(row as never), row });

  const want = new Set(classesOf(opts));
  // an entity appearing or disappearing is a difference of state
  const added = want.has('state')
    ? [...after]
        .filter(([k]) => !before.has(k))
        .sort(byOrder)
        .map(ref)
    : [];
  const removed = want.has('state')
    ? [...before]
        .filter(([k]) => !after.has(k))
        .sort(byOrder)
        .map(ref)
    : [];
  const common = [...after].filter(([k]) => before.has(k)).sort(byOrder);
  const pairs = common.map(([k, row]) => [before.get(k)!, row] as const);
  const changed: EntityChange[] = [];
  const schema = RESOURCES[resource].schema;
  for (const [oldRow, newRow] of pairs) {
    const all = diffRows(
      resource,
      schema,
      oldRow as Record<string, unknown>,
      newRow as Record<string, unknown>,
      elapsedSeconds,
    );
    // a measurement that moved is a difference too (class `values`), shown with both values and the delta
    const changes = all.filter((c) => c.kind === 'value' && want.has(changeClass(resource, c)));
    const counters = want.has('values') ? all.filter((c) => c.kind === 'counter') : [];
    const gauges = want.has('values') ? all.filter((c) => c.kind === 'gauge') : [];
    if (changes.length + counters.length + gauges.length === 0) continue;
    if (resource === 'shadow-links') describeShadowLinkChanges(changes, oldRow as ShadowLink, newRow as ShadowLink);
    changed.push({ ...ref([keyOf(newRow), newRow]), oldRow, changes, counters, gauges });
  }
  const counts =
    resource === 'connections'
      ? { connectionChanges: connectionChangeCounts(compareConnections(a.rows as never, b.rows as never)) }
      : {};
  return {
    ...base,
    elapsedSeconds,
    added,
    removed,
    changed,
    unchanged: common.length - changed.length,
    totals: totals(resource, pairs, elapsedSeconds),
    ...counts,
  };
}

/** The key of a row: the resource's key fields joined by `/` (`cluster` for singletons). */
export function keyFunction(resource: ResourceName): (row: object) => string {
  const fields = RESOURCES[resource].key;
  if (fields.length === 0) return () => 'cluster';
  if (fields.length === 1) {
    const f = fields[0]!;
    return (row) => String((row as Record<string, unknown>)[f]);
  }
  return (row) => fields.map((f) => String((row as Record<string, unknown>)[f])).join('/');
}

function getter(path: string): (row: object) => unknown {
  const steps = path.split('.');
  return (row) => {
    let v: unknown = row;
    for (const s of steps) v = v === undefined || v === null ? undefined : (v as Record<string, unknown>)[s];
    return v;
  };
}

/** Sums of the counters and of the count-like gauges over entities present at both instants. */
function totals(resource: ResourceName, pairs: readonly (readonly [object, object])[], seconds: number): MetricTotal[] {
  const rules = DIFF_RULES[resource];
  const out: MetricTotal[] = [];
  const metrics: [string, MetricUnit, 'counter' | 'gauge'][] = [
    ...Object.entries(rules.counters).map(([p, u]) => [p, u, 'counter'] as [string, MetricUnit, 'counter']),
    ...Object.entries(rules.gauges)
      .filter(([, u]) => u === 'count' || u === 'bytes')
      .map(([p, u]) => [p, u, 'gauge'] as [string, MetricUnit, 'gauge']),
  ];
  for (const [path, unit, kind] of metrics) {
    const get = getter(path);
    let oldSum = 0n;
    let newSum = 0n;
    let moving = 0;
    for (const [a, b] of pairs) {
      const x = get(a);
      const y = get(b);
      const bx = typeof x === 'bigint' ? x : 0n;
      const by = typeof y === 'bigint' ? y : 0n;
      oldSum += bx;
      newSum += by;
      if (bx !== by) moving++;
    }
    const delta = newSum - oldSum;
    const total: MetricTotal = { path, kind, unit, oldSum, newSum, delta, moving };
    out.push(kind === 'counter' && seconds > 0 ? { ...total, ratePerSecond: Number(delta) / seconds } : total);
  }
  return out;
}
