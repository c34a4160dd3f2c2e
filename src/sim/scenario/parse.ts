/** Parses and validates the YAML scenario format; every error names its line, column and field. */
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { z } from 'zod';
import { parseFilterDuration } from '../../api/codec/duration.ts';
import { OPERATION_NAMES } from '../../api/schema/operations.ts';
import {
  API_FAULT_KINDS,
  EVENT_KINDS,
  EVENT_KIND_NAMES,
  ScenarioError,
  type EventKind,
  type EventKindSpec,
  type Scenario,
  type ScenarioEvent,
} from './types.ts';

const TOP_KEYS = ['name', 'description', 'duration', 'world', 'events'] as const;
const WORLD_KEYS = ['connections', 'brokers', 'links', 'auto_finalization', 'extreme_values'] as const;
const COMMON_EVENT_KEYS = ['at', 'kind', 'duration', 'until'] as const;

const shown = (v: unknown): string => JSON.stringify(v) ?? String(v);

/** A duration: `90s`, `2m`, `1h30m`, `500ms`, or a number of seconds; in nanoseconds. */
function duration(missing = 'missing (required)'): z.ZodType<bigint, unknown> {
  return z.unknown().transform((v, ctx) => {
    const fail = (message: string): never => {
      ctx.issues.push({ code: 'custom', input: v, message });
      return z.NEVER;
    };
    if (v === undefined) return fail(missing);
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.round(v * 1e9));
    if (typeof v === 'string') {
      try {
        const ns = parseFilterDuration(v);
        if (ns >= 0n) return ns;
      } catch (err) {
        return fail(
          `invalid duration ${shown(v)}: ${err instanceof Error ? err.message : String(err)} (use e.g. 90s, 2m, 1h30m)`,
        );
      }
    }
    return fail(`expected a duration like 90s, 2m or 1h30m, got ${shown(v)}`);
  });
}

const missingOr = (message: (input: unknown) => string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? 'missing (required)' : message(iss.input);

/** A non-negative number (a whole one when `integer`). */
function count(integer: boolean): z.ZodNumber {
  const what = missingOr((v) => `expected ${integer ? 'an integer' : 'a number'}, got ${shown(v)}`);
  const n = z.number({ error: what }).nonnegative({ error: (iss) => `must not be negative, got ${shown(iss.input)}` });
  return integer ? n.int({ error: what }) : n;
}

const text = z.string({ error: missingOr((v) => `expected a non-empty string, got ${shown(v)}`) }).min(1, {
  error: 'expected a non-empty string, got ""',
});

const bool = z.boolean({ error: missingOr((v) => `expected true or false, got ${shown(v)}`) });

const fault = z.enum(API_FAULT_KINDS, {
  error: missingOr((v) => `unknown fault ${shown(v)} (expected one of ${API_FAULT_KINDS.join(', ')})`),
});

const operations = z.array(z.enum(OPERATION_NAMES, { error: (iss) => `unknown operation ${shown(iss.input)}` }), {
  error: 'expected a list',
});

/** The name of a field of some event kind (snake_case, as written). */
type FieldName = { [K in EventKind]: keyof (typeof EVENT_KINDS)[K]['fields'] }[EventKind];

/** The schema of every event field, by name (each optional here: EVENT_KINDS says which kind requires it). */
const FIELDS = {
  broker: count(true).optional(),
  client: text.optional(),
  rate: count(false).optional(),
  lifetime: duration().optional(),
  principal: text.optional(),
  listener: text.optional(),
  group: text.optional(),
  link: text.optional(),
  reason: text.optional(),
  task: text.optional(),
  topic: text.optional(),
  transition: duration().optional(),
  factor: count(false).optional(),
  to_release: text.optional(),
  to_logical: count(true).optional(),
  member_interval: duration().optional(),
  restart: duration().optional(),
  auto_finalize: bool.optional(),
  finalize_after: duration().optional(),
  error_code: text.optional(),
  error_message: text.optional(),
  fault: fault.optional(),
  operations: operations.optional(),
  delay: duration().optional(),
  ratio: count(false).optional(),
  status: count(true).optional(),
  size: count(true).optional(),
} satisfies Record<FieldName, z.ZodType>;

const kindNames = EVENT_KIND_NAMES.join(', ');

const eventSchema = z
  .looseObject(
    {
      kind: z.enum(EVENT_KIND_NAMES, {
        error: (iss) =>
          iss.input === undefined
            ? `missing (one of ${kindNames})`
            : `unknown event kind ${shown(iss.input)} (expected one of ${kindNames})`,
      }),
      at: duration('missing (when the event starts, e.g. 2m)'),
      duration: duration().optional(),
      until: duration().optional(),
      ...FIELDS,
    },
    { error: 'expected a mapping with at least `at` and `kind`' },
  )
  .superRefine((e, ctx) => {
    const spec = EVENT_KINDS[e.kind];
    const fields: EventKindSpec['fields'] = spec.fields;
    const allowed = [...COMMON_EVENT_KEYS, ...Object.keys(fields)];
    const fail = (key: string, message: string, at: 'key' | 'value' = 'value'): void => {
      ctx.issues.push({ code: 'custom', input: e, path: [key], message, params: { at } });
    };
    for (const key of Object.keys(e))
      if (!allowed.includes(key)) fail(key, `unknown field (expected one of ${allowed.join(', ')})`, 'key');
    for (const [key, f] of Object.entries(fields))
      if (f.required === true && !Object.hasOwn(e, key)) fail(key, 'missing (required)');
    const windowKey = e.duration !== undefined ? 'duration' : 'until';
    if (e.duration !== undefined && e.until !== undefined) fail('until', 'give either duration or until, not both');
    else if (e.duration !== undefined || e.until !== undefined) {
      if (spec.window === 'none') fail(windowKey, `${e.kind} is instantaneous and takes no window`);
      else if ((e.duration !== undefined ? e.at + e.duration : (e.until ?? 0n)) <= e.at)
        fail(windowKey, 'must be after `at`');
    } else if (spec.window === 'required') fail('duration', `missing: ${e.kind} needs a duration or until`);
    if (e.factor !== undefined && e.factor < 5)
      fail('factor', `must be at least 5 (replication absorbs smaller spikes), got ${e.factor}`);
    if (e.ratio !== undefined && e.ratio > 1) fail('ratio', `must be between 0 and 1, got ${e.ratio}`);
    if (e.rate !== undefined && (e.rate <= 0 || e.rate > 500)) fail('rate', `must be in (0, 500], got ${e.rate}`);
    if (e.status !== undefined && (e.status < 100 || e.status > 599)) fail('status', `not an HTTP status: ${e.status}`);
  })
  .transform((e): Omit<ScenarioEvent, 'index' | 'line'> => {
    const until = e.duration !== undefined ? e.at + e.duration : e.until;
    return {
      kind: e.kind,
      at: e.at,
      ...(until === undefined ? {} : { until, duration: until - e.at }),
      broker: e.broker,
      link: e.link,
      topic: e.topic,
      task: e.task,
      group: e.group,
      client: e.client,
      principal: e.principal,
      listener: e.listener,
      reason: e.reason,
      errorCode: e.error_code,
      errorMessage: e.error_message,
      rate: e.rate,
      factor: e.factor,
      lifetime: e.lifetime,
      transition: e.transition,
      toRelease: e.to_release,
      toLogical: e.to_logical,
      memberInterval: e.member_interval,
      restart: e.restart,
      autoFinalize: e.auto_finalize,
      finalizeAfter: e.finalize_after,
      fault: e.fault,
      operations: e.operations,
      delay: e.delay,
      ratio: e.ratio,
      status: e.status,
      size: e.size,
    };
  });

/** A strict mapping with the scenario format's messages. */
function mapping<S extends z.core.$ZodLooseShape>(shape: S, keys: readonly string[]): z.ZodObject<S, z.core.$strict> {
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `unknown field (expected one of ${keys.join(', ')})`
        : 'expected a mapping (key: value lines)',
  });
}

const worldSchema = mapping(
  {
    connections: count(true).optional(),
    brokers: count(true)
      .min(1, { error: 'must be between 1 and 64' })
      .max(64, { error: 'must be between 1 and 64' })
      .optional(),
    links: z.array(text, { error: 'expected a list' }).optional(),
    auto_finalization: bool.optional(),
    extreme_values: bool.optional(),
  },
  WORLD_KEYS,
).transform((w) => ({
  ...(w.connections === undefined ? {} : { connections: w.connections }),
  ...(w.brokers === undefined ? {} : { brokers: w.brokers }),
  ...(w.links === undefined ? {} : { links: w.links }),
  ...(w.auto_finalization === undefined ? {} : { autoFinalization: w.auto_finalization }),
  ...(w.extreme_values === undefined ? {} : { extremeValues: w.extreme_values }),
}));

const scenarioSchema = mapping(
  {
    name: z
      .string({
        error: (iss) => (iss.input === undefined ? 'missing' : `expected a non-empty string, got ${shown(iss.input)}`),
      })
      .min(1, {
        error: 'expected a non-empty string, got ""',
      }),
    description: text.optional(),
    duration: duration().optional(),
    world: worldSchema.optional(),
    events: z.array(eventSchema, { error: 'expected a list of events' }).optional(),
  },
  TOP_KEYS,
);

/** `events[2].broker` from a zod path. */
function fieldOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  return out;
}

/**
 * The node a path leads to in the document: the value at the path (its key when `key`), or the
 * deepest mapping or list on the way when the path names something missing.
 */
function nodeAt(doc: Document, path: readonly PropertyKey[], key: boolean): Node | null {
  let node = isNodeLike(doc.contents) ? doc.contents : null;
  for (const [i, p] of path.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(p));
      if (pair === undefined) return node;
      const last = i === path.length - 1;
      const next = last && key ? pair.key : pair.value;
      if (!isNodeLike(next)) return isNodeLike(pair.key) ? pair.key : node;
      node = next;
    } else if (isSeq(node) && typeof p === 'number') {
      const next = node.items[p];
      if (!isNodeLike(next)) return node;
      node = next;
    } else return node;
  }
  return node;
}

function isNodeLike(v: unknown): v is Node {
  return isScalar(v) || isMap(v) || isSeq(v);
}

/** Parses a scenario from YAML text; `sourceName` (file path or built-in name) appears in errors. */
export function parseScenario(yamlText: string, sourceName: string): Scenario {
  const lines = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: lines, prettyErrors: false });
  const first = doc.errors[0];
  if (first !== undefined) {
    const pos = lines.linePos(first.pos[0]);
    throw new ScenarioError(sourceName, pos.line, pos.col, '', `YAML syntax: ${first.message.split('\n')[0]}`);
  }
  const positionOf = (path: readonly PropertyKey[], key = false): { line: number; col: number } => {
    const range = nodeAt(doc, path, key)?.range;
    return range ? lines.linePos(range[0]) : { line: 0, col: 0 };
  };
  const r = scenarioSchema.safeParse(doc.toJS());
  if (!r.success) {
    const issue = r.error.issues[0];
    if (issue === undefined) throw new ScenarioError(sourceName, 0, 0, '', 'not a valid scenario');
    const unknownKey = issue.code === 'unrecognized_keys';
    const path = unknownKey ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
    const atKey = unknownKey || (issue.code === 'custom' && issue.params?.at === 'key');
    const pos = positionOf(path, atKey);
    throw new ScenarioError(sourceName, pos.line, pos.col, fieldOf(path), issue.message);
  }
  const { name, description = '', duration: length, world = {}, events = [] } = r.data;
  return {
    name,
    description,
    source: sourceName,
    ...(length === undefined ? {} : { duration: length }),
    world,
    events: events.map((e, index) => ({ ...e, index, line: positionOf(['events', index]).line })),
  };
}
