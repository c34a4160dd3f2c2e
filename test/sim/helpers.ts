/** Helpers of the simulator tests: Connect calls over loopback and a wire-rule checker. */
import { expect } from 'vitest';
import type { FieldType, MessageSchema } from '../../src/api/schema/fields.ts';
import { operationPath, type OperationName } from '../../src/api/schema/operations.ts';
import type { SimServer } from '../../src/sim/index.ts';

/**
 * A JSON body as the tests read it: a Connect error's code and message, or an answer's fields
 * (int64 values as decimal strings); any other field is read as unknown.
 */
export interface ReplyJson {
  readonly code?: string;
  readonly message?: string;
  readonly totalSize?: string;
  readonly connections?: readonly unknown[];
  readonly shadowTopics?: readonly unknown[];
  readonly [field: string]: unknown;
}

/** The answer of one call. */
export interface Reply {
  status: number;
  text: string;
  /** the parsed JSON body (undefined when it is not JSON) */
  json: ReplyJson | undefined;
  contentType: string;
}

/** Posts a Connect unary call (JSON) to the simulated server. */
export async function call(
  server: SimServer,
  op: OperationName,
  body: unknown = {},
  init: { headers?: Record<string, string>; method?: string; raw?: string } = {},
): Promise<Reply> {
  const res = await fetch(server.baseUrl + operationPath(op, server.servicePrefix), {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', 'connect-protocol-version': '1', ...init.headers },
    body: init.method === 'GET' ? undefined : (init.raw ?? JSON.stringify(body)),
  });
  const text = await res.text();
  let json: ReplyJson | undefined;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, contentType: res.headers.get('content-type') ?? '' };
}

const INT64 = /^-?[0-9]+$/;
const TIMESTAMP = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z$/;
const DURATION = /^-?[0-9]+(\.[0-9]{3}|\.[0-9]{6}|\.[0-9]{9})?s$/;

function checkValue(type: FieldType, v: unknown, path: string, bad: string[]): void {
  const ok = (cond: boolean): void => {
    if (!cond) bad.push(`${path} = ${JSON.stringify(v)} is not a valid ${type.kind}`);
  };
  switch (type.kind) {
    case 'string':
      return ok(typeof v === 'string');
    case 'bool':
      return ok(typeof v === 'boolean');
    case 'int32':
    case 'uint32':
      return ok(Number.isInteger(v));
    case 'int64':
    case 'uint64':
      return ok(typeof v === 'string' && INT64.test(v));
    case 'duration':
      return ok(typeof v === 'string' && DURATION.test(v));
    case 'timestamp':
      return ok(typeof v === 'string' && TIMESTAMP.test(v));
    case 'enum':
      return ok(type.table.values.includes(v as string));
    case 'message':
      wireProblems(type.message, v, path, bad);
      return;
    case 'list':
      if (!Array.isArray(v)) return ok(false);
      return v.forEach((e, i) => checkValue(type.element, e, `${path}[${i}]`, bad));
    case 'map':
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return ok(false);
      for (const [k, e] of Object.entries(v)) {
        if (type.keyKind === 'int32' && !/^-?[0-9]+$/.test(k)) bad.push(`${path}: map key ${k} is not decimal`);
        checkValue(type.value, e, `${path}["${k}"]`, bad);
      }
  }
}

/** Collects violations of the wire rules: a missing always-present field, a stray field, a value not in server form. */
export function wireProblems(schema: MessageSchema, json: unknown, path = '', bad: string[] = []): string[] {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    bad.push(`${path} is not an object`);
    return bad;
  }
  const o = json as Record<string, unknown>;
  for (const [name, spec] of Object.entries(schema.fields)) {
    const p = path ? `${path}.${name}` : name;
    if (spec.presence === 'always' && !Object.hasOwn(o, name)) bad.push(`${p} missing`);
    if (o[name] !== undefined) checkValue(spec.type, o[name], p, bad);
  }
  for (const k of Object.keys(o))
    if (!Object.hasOwn(schema.fields, k)) bad.push(`${path}.${k} is not a field of ${schema.name}`);
  return bad;
}

/** Asserts the wire rules (see wireProblems). */
export function checkWire(schema: MessageSchema, json: unknown, path = ''): void {
  expect(wireProblems(schema, json, path).slice(0, 5)).toEqual([]);
}
