/**
 * Field paths against the resource schemas: resolution of dotted snake_case (and, in the
 * extended dialect, camelCase) paths to typed steps, suggestions for misspelled names, and
 * the list of every path of a resource for completion and docs.
 */
import {
  camelToSnake,
  RESOURCES,
  type FieldSpec,
  type FieldType,
  type MessageSchema,
  type ResourceName,
  type ResourceSpec,
} from '../api/schema/index.ts';
import { parseIntLiteral } from '../api/codec/int64.ts';
import type { Dialect, PathStep, ResolvedPath, SyntaxPath } from './ast.ts';
import { didYouMean, FilterError, nearest } from './errors.ts';

/** One field of a message, by both of its names. */
interface FieldInfo {
  readonly wire: string;
  readonly snake: string;
  readonly spec: FieldSpec;
}

interface Lookup {
  readonly bySnake: Map<string, FieldInfo>;
  readonly byWire: Map<string, FieldInfo>;
}

const lookups = new WeakMap<MessageSchema, Lookup>();

function lookupOf(schema: MessageSchema): Lookup {
  let l = lookups.get(schema);
  if (l === undefined) {
    l = { bySnake: new Map(), byWire: new Map() };
    for (const [wire, spec] of Object.entries(schema.fields)) {
      const info = { wire, snake: camelToSnake(wire), spec };
      l.bySnake.set(info.snake, info);
      l.byWire.set(wire, info);
    }
    lookups.set(schema, l);
  }
  return l;
}

/** A human name of a field type (`int64`, `enum KafkaConnectionState`, `list<string>`). */
export function typeName(type: FieldType): string {
  switch (type.kind) {
    case 'enum':
      return `enum ${type.table.typeName}`;
    case 'message':
      return `message ${type.message.name}`;
    case 'list':
      return `list<${typeName(type.element)}>`;
    case 'map':
      return `map<${type.keyKind}, ${typeName(type.value)}>`;
    default:
      return type.kind;
  }
}

/** One path of a resource, for completion and docs. */
export interface FieldPathInfo {
  /** snake_case dotted path */
  path: string;
  /** type name, see typeName() */
  type: string;
  doc?: string;
  /** the cluster's dialect accepts this path (message fields only, ending on a scalar or enum) */
  server: boolean;
}

const MAX_SCHEMA_DEPTH = 12;
const pathLists = new WeakMap<ResourceSpec, FieldPathInfo[]>();

/** A resource by name (see RESOURCES), or a spec of its own (tests, future resources). */
export type ResourceRef = ResourceName | ResourceSpec;

/** The spec of a resource reference. */
export function specOf(resource: ResourceRef): ResourceSpec {
  return typeof resource === 'string' ? RESOURCES[resource] : resource;
}

/** A display name of a resource reference. */
export function resourceLabel(resource: ResourceRef): string {
  return typeof resource === 'string' ? resource : resource.name;
}

function pathsOf(resource: ResourceRef): FieldPathInfo[] {
  const spec = specOf(resource);
  let list = pathLists.get(spec);
  if (list === undefined) {
    list = [];
    walk(spec.schema, '', true, 0, list);
    pathLists.set(spec, list);
  }
  return list;
}

/** Every path of a resource (messages, lists and maps included), depth first in schema order. */
export function listFieldPaths(resource: ResourceRef): FieldPathInfo[] {
  return pathsOf(resource).map((p) => ({ ...p }));
}

function walk(schema: MessageSchema, prefix: string, serverOk: boolean, depth: number, out: FieldPathInfo[]): void {
  if (depth > MAX_SCHEMA_DEPTH) return;
  for (const [wire, spec] of Object.entries(schema.fields)) {
    const path = prefix + camelToSnake(wire);
    const t = spec.type;
    const leaf = t.kind !== 'message' && t.kind !== 'list' && t.kind !== 'map';
    const info: FieldPathInfo = { path, type: typeName(t), server: serverOk && leaf };
    if (spec.doc !== undefined) info.doc = spec.doc;
    out.push(info);
    if (t.kind === 'message') walk(t.message, `${path}.`, serverOk, depth + 1, out);
    if (t.kind === 'list' && t.element.kind === 'message') walk(t.element.message, `${path}.`, false, depth + 1, out);
  }
}

/** Leaf segment name to full paths, for "did you mean authentication_info.user_principal?". */
function pathsEndingWith(resource: ResourceRef, name: string): string[] {
  return pathsOf(resource)
    .filter((p) => p.path.endsWith(`.${name}`))
    .map((p) => p.path);
}

/** Resolves a path written in a filter or order_by; throws FilterError pointing at the bad segment. */
export function resolvePath(resource: ResourceRef, path: SyntaxPath, dialect: Dialect, input: string): ResolvedPath {
  const steps: PathStep[] = [];
  const text: string[] = [];
  const segs = path.segments;
  let message: MessageSchema | undefined = specOf(resource).schema;
  let type: FieldType | undefined;
  let optional = false;
  let simple = true;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] as (typeof segs)[number];
    const fail = (msg: string, suggestion?: string): never => {
      throw new FilterError(msg, input, seg.start, seg.end, suggestion);
    };
    if (message === undefined) {
      const owner = text.join('.');
      return fail(`${owner} is ${typeName(type as FieldType)}: it has no field ${JSON.stringify(seg.text)}`);
    }
    if (dialect === 'server' && !/^[A-Za-z]/.test(seg.text))
      fail(`field path segment ${JSON.stringify(seg.text)} must start with a letter`);
    const l = lookupOf(message);
    const info = l.bySnake.get(seg.text) ?? (dialect === 'extended' ? l.byWire.get(seg.text) : undefined);
    if (info === undefined) return fail(...unknownField(resource, message, text, seg.text, dialect, i === 0));
    steps.push({
      kind: 'field',
      wire: info.wire,
      snake: info.snake,
      type: info.spec.type,
      optional: info.spec.presence === 'optional',
    });
    text.push(info.snake);
    type = info.spec.type;
    optional = info.spec.presence === 'optional';
    message = type.kind === 'message' ? type.message : undefined;
    const more = i + 1 < segs.length;
    if (!more) break;
    if (type.kind === 'list') {
      if (dialect === 'server')
        fail(
          `${text.join('.')} is a repeated field: the cluster does not accept paths through repeated fields`,
          'use the extended dialect locally',
        );
      simple = false;
      steps.push({ kind: 'each', type: type.element });
      type = type.element;
      message = type.kind === 'message' ? type.message : undefined;
      optional = false;
    } else if (type.kind === 'map') {
      if (dialect === 'server')
        fail(`${text.join('.')} is a map: the cluster does not accept map fields`, 'use the extended dialect locally');
      simple = false;
      const keySeg = segs[++i] as (typeof segs)[number];
      const key = mapKey(type.keyKind, keySeg.text, input, keySeg.start, keySeg.end);
      steps.push({ kind: 'key', key, type: type.value });
      text.push(key);
      type = type.value;
      message = type.kind === 'message' ? type.message : undefined;
      optional = false;
    }
  }
  return { text: text.join('.'), steps, type: type as FieldType, simple, optional, start: path.start, end: path.end };
}

/** Canonical text of a map key (int32 keys as plain decimal). */
export function mapKey(keyKind: 'string' | 'int32', text: string, input: string, start: number, end: number): string {
  if (keyKind === 'string') return text;
  try {
    return parseIntLiteral(text, 'int32').toString();
  } catch (err) {
    throw new FilterError(`invalid map key ${JSON.stringify(text)}: ${(err as Error).message}`, input, start, end);
  }
}

function unknownField(
  resource: ResourceRef,
  message: MessageSchema,
  owner: readonly string[],
  name: string,
  dialect: Dialect,
  top: boolean,
): [string, string | undefined] {
  const where = owner.length === 0 ? resourceLabel(resource) : owner.join('.');
  const msg = `unknown field ${JSON.stringify(name)} in ${where}`;
  const l = lookupOf(message);
  const camel = l.byWire.get(name);
  if (camel !== undefined && dialect === 'server') {
    return [`${msg}: the cluster uses snake_case names`, `write ${[...owner, camel.snake].join('.')}`];
  }
  const prefix = owner.length === 0 ? '' : `${owner.join('.')}.`;
  const close = nearest(camelToSnake(name), l.bySnake.keys()).map((n) => prefix + n);
  if (close.length > 0) return [msg, didYouMean(close)];
  if (top) {
    const deep = pathsEndingWith(resource, camelToSnake(name));
    if (deep.length > 0) return [msg, didYouMean(deep.slice(0, 3))];
  }
  return [msg, `known fields: ${[...l.bySnake.keys()].join(', ')}`];
}
