/** Answer mutations for the fault proxy: each takes the simulator's answer and returns a damaged one. */
import { parseJsonLossless, stringifyJson, type JsonValue } from '../../../src/api/codec/lossless-json.ts';
import { formatTimestamp, parseTimestamp } from '../../../src/api/codec/timestamp.ts';
import type { Mutation, Served } from './fault-proxy.ts';

const RFC3339 = /^[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$/;
const EPOCH = 0n;

type Obj = { [k: string]: JsonValue };

function isObj(v: JsonValue): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Applies `fn` to every string value (not keys) of a JSON tree, in place. */
function mapStrings(v: JsonValue, fn: (s: string, key: string) => JsonValue, key = ''): JsonValue {
  if (typeof v === 'string') return fn(v, key);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = mapStrings(v[i] as JsonValue, fn, key);
    return v;
  }
  if (isObj(v)) for (const k of Object.keys(v)) v[k] = mapStrings(v[k] as JsonValue, fn, k);
  return v;
}

/** Visits every object of a JSON tree. */
function eachObject(v: JsonValue, fn: (o: Obj, depth: number) => void, depth = 0): void {
  if (Array.isArray(v)) for (const e of v) eachObject(e, fn, depth + 1);
  else if (isObj(v)) {
    fn(v, depth);
    for (const x of Object.values(v)) eachObject(x, fn, depth + 1);
  }
}

/** A mutation of successful JSON answers only (errors pass through untouched). */
function onJson(fn: (tree: JsonValue) => JsonValue): Mutation {
  return (a) => {
    if (a.status !== 200 || a.body.length === 0) return a;
    const tree = fn(parseJsonLossless(a.body));
    return { ...a, body: Buffer.from(stringifyJson(tree)) };
  };
}

/** Unknown fields at the top, in every nested message (not in maps), and of every JSON type. */
export const unknownFields: Mutation = onJson((tree) => {
  eachObject(tree, (o, depth) => {
    const keys = Object.keys(o);
    if (keys.length > 0 && !keys.some((k) => /^-?[0-9]+$/.test(k))) o.futureFlag = depth % 2 === 0;
  });
  if (isObj(tree))
    tree['x-future-section'] = { list: [1, 'two', null, { deep: 2n ** 70n }], note: 'added by a newer cluster' };
  return tree;
});

/** Every second field of every object left out (proto3 JSON: a missing field is its default). */
export const missingFields: Mutation = onJson((tree) => {
  eachObject(tree, (o) => {
    Object.keys(o).forEach((k, i) => {
      if (i % 2 === 1) delete o[k];
    });
  });
  return tree;
});

/** Every timestamp replaced by one instant (far past, far future, or out of range). */
export function timestampsAt(instant: string): Mutation {
  return onJson((tree) => mapStrings(tree, (s) => (RFC3339.test(s) && parseTimestamp(s) !== EPOCH ? instant : s)));
}

/** The cluster clock jumps: every set timestamp moved by `seconds`. */
export function shiftTimestamps(seconds: number): Mutation {
  const shift = BigInt(seconds) * 1_000_000_000n;
  return onJson((tree) =>
    mapStrings(tree, (s) => {
      if (!RFC3339.test(s)) return s;
      const t = parseTimestamp(s);
      return t === EPOCH ? s : formatTimestamp(t + shift);
    }),
  );
}

/** A number where a string is expected and a word where a number is expected (first connection). */
export const wrongTypes: Mutation = onJson((tree) => {
  const first = isObj(tree) && Array.isArray(tree.connections) ? tree.connections[0] : undefined;
  if (first !== undefined && isObj(first)) first.nodeId = 'two';
  else if (isObj(tree)) tree[Object.keys(tree)[0] ?? 'x'] = 42;
  return tree;
});

/** Replaces the values of the named string fields with hostile strings (cycling through the list). */
export function hostileFields(keys: readonly string[], values: readonly string[]): Mutation {
  let n = 0;
  return onJson((tree) =>
    mapStrings(tree, (s, key) => (keys.includes(key) && s !== '' ? (values[n++ % values.length] as string) : s)),
  );
}

/** Replaces the answer with a Connect error of this code, status and message. */
export function connectError(code: string, status: number, message: string): Mutation {
  return () => ({ status, contentType: 'application/json', body: Buffer.from(JSON.stringify({ code, message })) });
}

/** Puts raw bytes that are not UTF-8 inside the first value of `key`. */
export function invalidUtf8(key: string): Mutation {
  return (a) => {
    const marker = Buffer.from(`"${key}":"`);
    const at = a.body.indexOf(marker);
    if (a.status !== 200 || at < 0) return a;
    const cut = at + marker.length;
    return {
      ...a,
      body: Buffer.concat([a.body.subarray(0, cut), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x1b]), a.body.subarray(cut)]),
    };
  };
}

/** A hostile server: echoes the request's Authorization header back in an error message and body. */
export const echoAuthorization: Mutation = (_a, ctx) => {
  const auth = String(ctx.headers.authorization ?? '');
  const token = auth.replace(/^\S+\s+/, '');
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const message = `denied for ${auth} (decoded ${decoded}, token ${token})`;
  return {
    status: 403,
    contentType: 'application/json',
    body: Buffer.from(JSON.stringify({ code: 'permission_denied', message, details: [{ echo: auth }] })),
  } satisfies Served;
};
