/**
 * Field-level comparison of two decoded rows of one resource, driven by the schema: every
 * changed field with its path and its old and new values; monotonic counters as deltas and
 * gauges (lags, idle time, one-minute statistics) kept apart so they do not read as changes.
 */
import { stringifyJson, type JsonValue } from '../api/codec/lossless-json.ts';
import type { FieldType, MessageSchema } from '../api/schema/fields.ts';
import type { ResourceName } from '../api/schema/resources.ts';
import { encodeValue } from '../api/wire/encode.ts';

/** How a field's movement is reported. */
export type FieldClass = 'value' | 'counter' | 'gauge' | 'skip';

/** What a counter or gauge counts, for units in renderings. */
export type MetricUnit = 'bytes' | 'count' | 'offset' | 'duration' | 'time';

/** One difference between the two rows of an entity. */
export interface FieldChange {
  /** dotted wire path (`configurations.clientOptions.tlsSettings.enabled`, `apiVersions.42`) */
  readonly path: string;
  readonly kind: 'value' | 'counter' | 'gauge';
  /** the field's type (undefined for unknown fields, whose values are raw JSON) */
  readonly type: FieldType | undefined;
  /** decoded values; undefined when absent on that side (an added or removed list item) */
  readonly old: unknown;
  readonly new: unknown;
  /** counters and numeric gauges: new - old */
  readonly delta?: bigint;
  /** counters: delta per second between the two polls */
  readonly ratePerSecond?: number;
  readonly unit?: MetricUnit;
  /** the change spelled out for people, when a rule knows better than `path: old → new` */
  description?: string;
}

interface Rules {
  readonly skip: readonly string[];
  readonly counters: Readonly<Record<string, MetricUnit>>;
  readonly gauges: Readonly<Record<string, MetricUnit>>;
  /** subtrees that are configuration (what an operator set) rather than state */
  readonly config?: readonly string[];
}

/** What a difference is about: `state` (presence, states, attributes), `config` (settings), `values` (counters and gauges). */
export const DIFF_CLASSES = ['state', 'config', 'values'] as const;
/** One class of difference. */
export type DiffClass = (typeof DIFF_CLASSES)[number];

const REQUEST_STATS = (prefix: string): Record<string, MetricUnit> => ({
  [`${prefix}.fetchBytes`]: 'bytes',
  [`${prefix}.produceBatchCount`]: 'count',
  [`${prefix}.produceBytes`]: 'bytes',
  [`${prefix}.requestCount`]: 'count',
});
const SR_COUNTERS = (prefix: string): Record<string, MetricUnit> => ({
  [`${prefix}.compatibilityConfigsChanged`]: 'count',
  [`${prefix}.errors`]: 'count',
  [`${prefix}.modesChanged`]: 'count',
  [`${prefix}.subjectVersionsChanged`]: 'count',
  [`${prefix}.unsupportedFeaturesRemoved`]: 'count',
});
const NONE: Rules = { skip: [], counters: {}, gauges: {} };

/**
 * Per resource: subtrees reported by another resource or pure sampling noise (skip), monotonic
 * counters, and gauges. Everything else is a value whose change is a difference.
 */
export const DIFF_RULES: Readonly<Record<ResourceName, Rules>> = {
  connections: {
    skip: ['inFlightRequests'],
    counters: REQUEST_STATS('totalRequestStatistics'),
    gauges: { ...REQUEST_STATS('recentRequestStatistics'), idleDuration: 'duration' },
  },
  'shadow-links': {
    config: ['configurations'],
    skip: ['status.shadowTopics', 'status.taskStatuses', 'status.schemaRegistrySyncStatus.currentSync'],
    counters: SR_COUNTERS('status.schemaRegistrySyncStatus.totalsSinceTaskStart'),
    gauges: {
      'status.schemaRegistrySyncStatus.inventory.selectedSourceSubjects': 'count',
      'status.schemaRegistrySyncStatus.inventory.selectedSourceSubjectVersions': 'count',
      'status.schemaRegistrySyncStatus.inventory.destinationSubjects': 'count',
      'status.schemaRegistrySyncStatus.inventory.destinationSubjectVersions': 'count',
    },
  },
  'shadow-tasks': NONE,
  'shadow-topics': { skip: ['status.partitionInformation'], counters: {}, gauges: {} },
  'shadow-partitions': {
    skip: [],
    counters: { highWatermark: 'offset', sourceHighWatermark: 'offset', sourceLastStableOffset: 'offset' },
    gauges: { lag: 'count', sourceLastUpdatedTimestamp: 'time' },
  },
  upgrade: { skip: ['members'], counters: {}, gauges: {}, config: ['autoFinalizationEnabled'] },
  'upgrade-members': NONE,
  'iceberg-topics': { skip: ['partitions'], counters: {}, gauges: {} },
  'iceberg-partitions': {
    skip: [],
    counters: { lastTranslatedOffset: 'offset', lastCommittedOffset: 'offset' },
    gauges: { commitLag: 'count' },
  },
  polls: NONE,
};

/** The class of a path under a resource's rules. */
export function classify(resource: ResourceName, path: string): { cls: FieldClass; unit?: MetricUnit } {
  const rules = DIFF_RULES[resource];
  for (const s of rules.skip) if (path === s || path.startsWith(`${s}.`)) return { cls: 'skip' };
  const c = rules.counters[path];
  if (c !== undefined) return { cls: 'counter', unit: c };
  const g = rules.gauges[path];
  if (g !== undefined) return { cls: 'gauge', unit: g };
  return { cls: 'value' };
}

/** The class of one change: counters and gauges are `values`; a value under a configuration subtree is `config`; the rest `state`. */
export function changeClass(resource: ResourceName, c: Pick<FieldChange, 'kind' | 'path'>): DiffClass {
  if (c.kind !== 'value') return 'values';
  const config = DIFF_RULES[resource].config ?? [];
  return config.some((p) => c.path === p || c.path.startsWith(`${p}.`) || c.path.startsWith(`${p}[`))
    ? 'config'
    : 'state';
}

/** Canonical text of a decoded value, for equality of lists and messages. */
export function canonical(type: FieldType, value: unknown): string {
  return stringifyJson(encodeValue(type, value));
}

function toBig(v: unknown): bigint | undefined {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return undefined;
}

/** Compares two rows of a resource; `seconds` is the time between their polls (for rates). */
export function diffRows(
  resource: ResourceName,
  schema: MessageSchema,
  oldRow: Record<string, unknown>,
  newRow: Record<string, unknown>,
  seconds: number,
): FieldChange[] {
  const out: FieldChange[] = [];
  walkMessage(resource, schema, oldRow, newRow, '', seconds, out);
  return out;
}

function walkMessage(
  resource: ResourceName,
  schema: MessageSchema,
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  prefix: string,
  seconds: number,
  out: FieldChange[],
): void {
  const switched = new Set<string>();
  for (const name in schema.fields) {
    const spec = schema.fields[name]!;
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const va = a[name];
    const vb = b[name];
    if (va === undefined && vb === undefined) continue;
    const rule = classify(resource, path);
    if (rule.cls === 'skip') continue;
    if (spec.oneof !== undefined) {
      const group = `${prefix === '' ? '' : `${prefix}.`}${spec.oneof}`;
      const chosenA = chosen(schema, a, spec.oneof);
      const chosenB = chosen(schema, b, spec.oneof);
      if (chosenA !== chosenB) {
        if (!switched.has(group)) {
          switched.add(group);
          out.push({ path: group, kind: 'value', type: undefined, old: chosenA ?? null, new: chosenB ?? null });
        }
        continue;
      }
    }
    if (va === undefined || vb === undefined) {
      out.push({ path, kind: 'value', type: spec.type, old: va, new: vb });
      continue;
    }
    walkValue(resource, spec.type, va, vb, path, rule, seconds, out);
  }
  walkUnknown(a.$unknown, b.$unknown, prefix, out);
}

/** The member of a one-of group that is set, by wire name. */
function chosen(schema: MessageSchema, row: Record<string, unknown>, group: string): string | undefined {
  for (const name in schema.fields) if (schema.fields[name]!.oneof === group && row[name] !== undefined) return name;
  return undefined;
}

function walkValue(
  resource: ResourceName,
  type: FieldType,
  va: unknown,
  vb: unknown,
  path: string,
  rule: { cls: FieldClass; unit?: MetricUnit },
  seconds: number,
  out: FieldChange[],
): void {
  if (type.kind === 'message') {
    walkMessage(
      resource,
      type.message,
      va as Record<string, unknown>,
      vb as Record<string, unknown>,
      path,
      seconds,
      out,
    );
    return;
  }
  if (type.kind === 'map') {
    const ma = va as Record<string, unknown>;
    const mb = vb as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(ma), ...Object.keys(mb)])].sort(compareKeys);
    for (const k of keys) {
      const x = ma[k];
      const y = mb[k];
      if (x !== undefined && y !== undefined && canonical(type.value, x) === canonical(type.value, y)) continue;
      out.push({ path: `${path}.${k}`, kind: 'value', type: type.value, old: x, new: y });
    }
    return;
  }
  if (type.kind === 'list') {
    diffList(type, va as unknown[], vb as unknown[], path, out);
    return;
  }
  if (va === vb) return;
  const kind = rule.cls === 'counter' || rule.cls === 'gauge' ? rule.cls : 'value';
  const da = toBig(va);
  const db = toBig(vb);
  if (kind !== 'value' && da !== undefined && db !== undefined) {
    const delta = db - da;
    const change: FieldChange = { path, kind, type, old: va, new: vb, delta, unit: rule.unit };
    out.push(kind === 'counter' && seconds > 0 ? { ...change, ratePerSecond: Number(delta) / seconds } : change);
    return;
  }
  out.push({ path, kind, type, old: va, new: vb, ...(rule.unit === undefined ? {} : { unit: rule.unit }) });
}

/** Lists compare as multisets: each removed item and each added item is one change. */
function diffList(
  type: Extract<FieldType, { kind: 'list' }>,
  a: unknown[],
  b: unknown[],
  path: string,
  out: FieldChange[],
): void {
  const ka = a.map((v) => canonical(type.element, v));
  const kb = b.map((v) => canonical(type.element, v));
  if (ka.length === kb.length && ka.every((k, i) => k === kb[i])) return;
  const remaining = new Map<string, number>();
  for (const k of kb) remaining.set(k, (remaining.get(k) ?? 0) + 1);
  const removed: unknown[] = [];
  ka.forEach((k, i) => {
    const n = remaining.get(k) ?? 0;
    if (n > 0) remaining.set(k, n - 1);
    else removed.push(a[i]);
  });
  const present = new Map<string, number>();
  for (const k of ka) present.set(k, (present.get(k) ?? 0) + 1);
  const added: unknown[] = [];
  kb.forEach((k, i) => {
    const n = present.get(k) ?? 0;
    if (n > 0) present.set(k, n - 1);
    else added.push(b[i]);
  });
  if (removed.length === 0 && added.length === 0) {
    out.push({ path, kind: 'value', type, old: a, new: b, description: `${path}: same items, new order` });
    return;
  }
  for (const v of removed) out.push({ path: `${path}[]`, kind: 'value', type: type.element, old: v, new: undefined });
  for (const v of added) out.push({ path: `${path}[]`, kind: 'value', type: type.element, old: undefined, new: v });
}

function walkUnknown(ua: unknown, ub: unknown, prefix: string, out: FieldChange[]): void {
  if (ua === undefined && ub === undefined) return;
  const a = (ua ?? {}) as Record<string, JsonValue>;
  const b = (ub ?? {}) as Record<string, JsonValue>;
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const x = a[k];
    const y = b[k];
    if (x !== undefined && y !== undefined && stringifyJson(x) === stringifyJson(y)) continue;
    out.push({ path: prefix === '' ? k : `${prefix}.${k}`, kind: 'value', type: undefined, old: x, new: y });
  }
}

function compareKeys(x: string, y: string): number {
  const nx = Number(x);
  const ny = Number(y);
  if (Number.isInteger(nx) && Number.isInteger(ny)) return nx - ny;
  return x < y ? -1 : x > y ? 1 : 0;
}
