/** Parses and validates the YAML scenario format; every error names its line, column and field. */
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node, type Pair } from 'yaml';
import { parseFilterDuration } from '../../api/codec/duration.ts';
import { isOperationName, type OperationName } from '../../api/schema/operations.ts';
import { snakeToCamel } from '../../api/schema/fields.ts';
import {
  API_FAULT_KINDS,
  EVENT_KINDS,
  EVENT_KIND_NAMES,
  ScenarioError,
  type ApiFaultKind,
  type EventKind,
  type FieldKind,
  type Scenario,
  type ScenarioEvent,
  type ScenarioWorld,
} from './types.ts';

const TOP_KEYS = ['name', 'description', 'duration', 'world', 'events'] as const;
const WORLD_KEYS = ['connections', 'brokers', 'links', 'auto_finalization', 'extreme_values'] as const;
const COMMON_EVENT_KEYS = ['at', 'kind', 'duration', 'until'] as const;

class Ctx {
  readonly source: string;
  readonly #lines: LineCounter;

  constructor(source: string, lines: LineCounter) {
    this.source = source;
    this.#lines = lines;
  }

  fail(node: Node | Pair | null | undefined, field: string, reason: string): never {
    const range = node && 'range' in node ? node.range : node && 'key' in node ? (node.key as Node | null)?.range : undefined;
    const pos = range ? this.#lines.linePos(range[0]) : { line: 0, col: 0 };
    throw new ScenarioError(this.source, pos.line, pos.col, field, reason);
  }

  line(node: Node | null | undefined): number {
    return node?.range ? this.#lines.linePos(node.range[0]).line : 0;
  }
}

function entries(ctx: Ctx, node: Node | null, field: string, allowed: readonly string[]): Map<string, Node | null> {
  if (!isMap(node)) ctx.fail(node, field, 'expected a mapping (key: value lines)');
  const out = new Map<string, Node | null>();
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const path = field ? `${field}.${key}` : key;
    if (!allowed.includes(key)) ctx.fail(pair.key as Node, path, `unknown field (expected one of ${allowed.join(', ')})`);
    out.set(key, (pair.value as Node | null) ?? null);
  }
  return out;
}

function scalarValue(ctx: Ctx, node: Node | null, field: string): unknown {
  if (!isScalar(node)) ctx.fail(node, field, 'expected a single value');
  return node.value;
}

function asString(ctx: Ctx, node: Node | null, field: string): string {
  const v = scalarValue(ctx, node, field);
  if (typeof v !== 'string' || v === '') ctx.fail(node, field, `expected a non-empty string, got ${JSON.stringify(v)}`);
  return v;
}

function asNumber(ctx: Ctx, node: Node | null, field: string, integer: boolean): number {
  const v = scalarValue(ctx, node, field);
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v))) {
    ctx.fail(node, field, `expected ${integer ? 'an integer' : 'a number'}, got ${JSON.stringify(v)}`);
  }
  if (v < 0) ctx.fail(node, field, `must not be negative, got ${v}`);
  return v;
}

/** A duration: `90s`, `2m`, `1h30m`, `500ms`, or a number of seconds. */
function asDuration(ctx: Ctx, node: Node | null, field: string): bigint {
  const v = scalarValue(ctx, node, field);
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.round(v * 1e9));
  if (typeof v === 'string') {
    try {
      const ns = parseFilterDuration(v);
      if (ns >= 0n) return ns;
    } catch (err) {
      ctx.fail(node, field, `invalid duration ${JSON.stringify(v)}: ${(err as Error).message} (use e.g. 90s, 2m, 1h30m)`);
    }
  }
  return ctx.fail(node, field, `expected a duration like 90s, 2m or 1h30m, got ${JSON.stringify(v)}`);
}

function asBool(ctx: Ctx, node: Node | null, field: string): boolean {
  const v = scalarValue(ctx, node, field);
  if (typeof v !== 'boolean') ctx.fail(node, field, `expected true or false, got ${JSON.stringify(v)}`);
  return v;
}

function asStrings(ctx: Ctx, node: Node | null, field: string): string[] {
  if (!isSeq(node)) ctx.fail(node, field, 'expected a list');
  return node.items.map((item, i) => asString(ctx, item as Node, `${field}[${i}]`));
}

function fieldValue(ctx: Ctx, kind: FieldKind, node: Node | null, field: string): unknown {
  switch (kind) {
    case 'int':
      return asNumber(ctx, node, field, true);
    case 'number':
      return asNumber(ctx, node, field, false);
    case 'string':
      return asString(ctx, node, field);
    case 'duration':
      return asDuration(ctx, node, field);
    case 'bool':
      return asBool(ctx, node, field);
    case 'fault': {
      const v = asString(ctx, node, field);
      if (!(API_FAULT_KINDS as readonly string[]).includes(v)) {
        ctx.fail(node, field, `unknown fault ${JSON.stringify(v)} (expected one of ${API_FAULT_KINDS.join(', ')})`);
      }
      return v as ApiFaultKind;
    }
    case 'operations': {
      const ops = asStrings(ctx, node, field);
      ops.forEach((op, i) => {
        if (!isOperationName(op)) ctx.fail(isSeq(node) ? (node.items[i] as Node) : node, `${field}[${i}]`, `unknown operation ${JSON.stringify(op)}`);
      });
      return ops as OperationName[];
    }
  }
}

function parseEvent(ctx: Ctx, node: Node | null, index: number): ScenarioEvent {
  const path = `events[${index}]`;
  if (!isMap(node)) ctx.fail(node, path, 'expected a mapping with at least `at` and `kind`');
  const kindNode = (node.items.find((p) => isScalar(p.key) && p.key.value === 'kind')?.value as Node | undefined) ?? null;
  if (kindNode === null) ctx.fail(node, `${path}.kind`, `missing (one of ${EVENT_KIND_NAMES.join(', ')})`);
  const kindName = asString(ctx, kindNode, `${path}.kind`);
  if (!Object.hasOwn(EVENT_KINDS, kindName)) {
    ctx.fail(kindNode, `${path}.kind`, `unknown event kind ${JSON.stringify(kindName)} (expected one of ${EVENT_KIND_NAMES.join(', ')})`);
  }
  const kind = kindName as EventKind;
  const spec = EVENT_KINDS[kind];
  const fields = entries(ctx, node, path, [...COMMON_EVENT_KEYS, ...Object.keys(spec.fields)]);
  const atNode = fields.get('at');
  if (atNode === undefined) ctx.fail(node, `${path}.at`, 'missing (when the event starts, e.g. 2m)');
  const at = asDuration(ctx, atNode, `${path}.at`);
  const event: Record<string, unknown> = { index, kind, at, line: ctx.line(node) };
  const durNode = fields.get('duration');
  const untilNode = fields.get('until');
  if (durNode !== undefined && untilNode !== undefined) ctx.fail(untilNode, `${path}.until`, 'give either duration or until, not both');
  const windowNode = durNode ?? untilNode;
  if (windowNode !== undefined) {
    if (spec.window === 'none') ctx.fail(windowNode, `${path}.${durNode ? 'duration' : 'until'}`, `${kind} is instantaneous and takes no window`);
    const v = asDuration(ctx, windowNode, `${path}.${durNode ? 'duration' : 'until'}`);
    const until = durNode !== undefined ? at + v : v;
    if (until <= at) ctx.fail(windowNode, `${path}.until`, 'must be after `at`');
    event.until = until;
    event.duration = until - at;
  } else if (spec.window === 'required') {
    ctx.fail(node, `${path}.duration`, `missing: ${kind} needs a duration or until`);
  }
  for (const [key, fspec] of Object.entries(spec.fields) as [string, { kind: FieldKind; required?: boolean }][]) {
    const v = fields.get(key);
    if (v === undefined) {
      if (fspec.required) ctx.fail(node, `${path}.${key}`, 'missing (required)');
      continue;
    }
    event[snakeToCamel(key)] = fieldValue(ctx, fspec.kind, v, `${path}.${key}`);
  }
  checkEvent(ctx, event as unknown as ScenarioEvent, node, path, fields);
  return event as unknown as ScenarioEvent;
}

function checkEvent(ctx: Ctx, e: ScenarioEvent, node: Node, path: string, fields: Map<string, Node | null>): void {
  if (e.factor !== undefined && e.factor < 5) ctx.fail(fields.get('factor') ?? node, `${path}.factor`, `must be at least 5 (replication absorbs smaller spikes), got ${e.factor}`);
  if (e.ratio !== undefined && e.ratio > 1) ctx.fail(fields.get('ratio') ?? node, `${path}.ratio`, `must be between 0 and 1, got ${e.ratio}`);
  if (e.rate !== undefined && (e.rate <= 0 || e.rate > 500)) ctx.fail(fields.get('rate') ?? node, `${path}.rate`, `must be in (0, 500], got ${e.rate}`);
  if (e.status !== undefined && (e.status < 100 || e.status > 599)) ctx.fail(fields.get('status') ?? node, `${path}.status`, `not an HTTP status: ${e.status}`);
}

function parseWorld(ctx: Ctx, node: Node | null): ScenarioWorld {
  const fields = entries(ctx, node, 'world', WORLD_KEYS);
  const world: { -readonly [K in keyof ScenarioWorld]: ScenarioWorld[K] } = {};
  const get = (k: string): Node | null | undefined => fields.get(k);
  if (get('connections') !== undefined) world.connections = asNumber(ctx, get('connections')!, 'world.connections', true);
  if (get('brokers') !== undefined) {
    world.brokers = asNumber(ctx, get('brokers')!, 'world.brokers', true);
    if (world.brokers < 1 || world.brokers > 64) ctx.fail(get('brokers'), 'world.brokers', 'must be between 1 and 64');
  }
  if (get('links') !== undefined) world.links = asStrings(ctx, get('links')!, 'world.links');
  if (get('auto_finalization') !== undefined) world.autoFinalization = asBool(ctx, get('auto_finalization')!, 'world.auto_finalization');
  if (get('extreme_values') !== undefined) world.extremeValues = asBool(ctx, get('extreme_values')!, 'world.extreme_values');
  return world;
}

/** Parses a scenario from YAML text; `sourceName` (file path or built-in name) appears in errors. */
export function parseScenario(yamlText: string, sourceName: string): Scenario {
  const lines = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: lines, prettyErrors: false });
  const ctx: Ctx = new Ctx(sourceName, lines);
  const first = doc.errors[0];
  if (first !== undefined) {
    const pos = lines.linePos(first.pos[0]);
    throw new ScenarioError(sourceName, pos.line, pos.col, '', `YAML syntax: ${first.message.split('\n')[0]}`);
  }
  const top = entries(ctx, doc.contents as Node | null, '', TOP_KEYS);
  const nameNode = top.get('name');
  if (nameNode === undefined) ctx.fail(doc.contents as Node, 'name', 'missing');
  const name = asString(ctx, nameNode ?? null, 'name');
  const description = top.get('description') !== undefined ? asString(ctx, top.get('description')!, 'description') : '';
  const duration = top.get('duration') !== undefined ? asDuration(ctx, top.get('duration')!, 'duration') : undefined;
  const world = top.get('world') !== undefined ? parseWorld(ctx, top.get('world')!) : {};
  const eventsNode = top.get('events') ?? null;
  let events: ScenarioEvent[] = [];
  if (eventsNode !== null) {
    if (!isSeq(eventsNode)) ctx.fail(eventsNode, 'events', 'expected a list of events');
    events = eventsNode.items.map((item, i) => parseEvent(ctx, item as Node, i));
  }
  return { name, description, source: sourceName, ...(duration !== undefined ? { duration } : {}), world, events };
}
