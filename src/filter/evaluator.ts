/**
 * Compiles a checked filter into specialised closures over decoded rows. All decisions (types,
 * operators, defaults, literal values) are taken here, once; a row is tested without any
 * switch on node kinds and without re-parsing. Plain paths of one or two fields get dedicated
 * closures (`r => (r[k] ?? d) === v`); the rest compose an accessor with a value predicate.
 */
import type { FieldType } from '../api/schema/index.ts';
import type { CheckedNode, CheckedRestriction, CompareOp, Literal, PathStep, Test } from './ast.ts';
import { compareBytes, compareUtf8, utf8Bytes } from './utf8.ts';
import { defaultValue } from '../api/wire/defaults.ts';

/** A compiled predicate over a decoded row (or list element, or map value). */
export type Pred = (row: unknown) => boolean;
/** Reads a value from a row. */
export type Getter = (row: unknown) => unknown;

/**
 * A decoded message read by wire key, field after field. A value is read as a message only after
 * the checker resolved its path against the schema; reading a key of a scalar (or of undefined
 * through `?.`) gives undefined, as the types say.
 */
interface Message {
  readonly [wire: string]: Message | undefined;
}
/**
 * A leaf the checker matched to a numeric literal: a number or a bigint (JS compares the two
 * exactly with `<`; an int64 held as a decimal string compares the same way).
 */
type Ordered = number | bigint;

/** Compiles a checked tree (undefined: the empty filter) into one predicate. */
export function compileNode(node: CheckedNode | undefined): Pred {
  if (node === undefined) return () => true;
  switch (node.kind) {
    case 'and':
      return all(byCost(node.children).map(compileNode));
    case 'or':
      return any(byCost(node.children).map(compileNode));
    case 'not': {
      const c = compileNode(node.child);
      return (r) => !c(r);
    }
    case 'restriction':
      return compileRestriction(node);
  }
}

/**
 * Children sorted by estimated cost, cheapest first (stable): predicates are pure, so the
 * order of AND/OR operands does not change the result, only how soon it is known. Plain
 * number and bool comparisons touch one property; list and map paths iterate.
 */
function byCost(children: readonly CheckedNode[]): CheckedNode[] {
  const costs = new Map<CheckedNode, number>();
  for (const c of children) costs.set(c, cost(c));
  return [...children].sort((a, b) => (costs.get(a) as number) - (costs.get(b) as number));
}

function cost(n: CheckedNode): number {
  switch (n.kind) {
    case 'and':
    case 'or': {
      let sum = 0;
      for (const c of n.children) sum += cost(c);
      return sum;
    }
    case 'not':
      return cost(n.child);
    case 'restriction': {
      const { path, test } = n;
      const depth = path.steps.length;
      if (!path.simple) return 20 + depth;
      if (test.kind !== 'compare') return 4 + depth;
      const k = path.type.kind;
      const eq = test.op === '=' || test.op === '!=';
      const base =
        k === 'int32' || k === 'uint32' || k === 'bool'
          ? 1
          : k === 'enum' || (k === 'string' && eq)
            ? 2
            : k === 'string'
              ? 6
              : 3;
      return base + (eq ? 0 : 0.5) + (depth - 1);
    }
  }
}

function all(ps: Pred[]): Pred {
  if (ps.length === 1) return ps[0] as Pred;
  if (ps.length === 2) {
    const [a, b] = ps as [Pred, Pred];
    return (r) => a(r) && b(r);
  }
  if (ps.length === 3) {
    const [a, b, c] = ps as [Pred, Pred, Pred];
    return (r) => a(r) && b(r) && c(r);
  }
  if (ps.length === 4) {
    const [a, b, c, d] = ps as [Pred, Pred, Pred, Pred];
    return (r) => a(r) && b(r) && c(r) && d(r);
  }
  const n = ps.length;
  return (r) => {
    for (let i = 0; i < n; i++) if (!(ps[i] as Pred)(r)) return false;
    return true;
  };
}

function any(ps: Pred[]): Pred {
  if (ps.length === 1) return ps[0] as Pred;
  if (ps.length === 2) {
    const [a, b] = ps as [Pred, Pred];
    return (r) => a(r) || b(r);
  }
  if (ps.length === 3) {
    const [a, b, c] = ps as [Pred, Pred, Pred];
    return (r) => a(r) || b(r) || c(r);
  }
  const n = ps.length;
  return (r) => {
    for (let i = 0; i < n; i++) if ((ps[i] as Pred)(r)) return true;
    return false;
  };
}

/** The value a field reads as when it is absent (also behind an unset message): its default. */
export function defaultOf(type: FieldType): unknown {
  // scalars read as their wire default; an absent message, list or map stays absent
  return type.kind === 'message' || type.kind === 'list' || type.kind === 'map' ? undefined : defaultValue(type);
}

/** The JS value a literal compares against, for a leaf of `type`. */
export function literalValue(lit: Literal, type: FieldType): unknown {
  switch (lit.kind) {
    case 'int':
      return type.kind === 'int32' || type.kind === 'uint32' ? Number(lit.value) : lit.value;
    case 'duration':
    case 'timestamp':
      return lit.nanos;
    case 'bool':
      return lit.value;
    case 'enum':
      return lit.name;
    case 'string':
      return lit.text;
  }
}

type Maker1 = (k: string, d: unknown, v: unknown) => Pred;
type Maker2 = (k1: string, k2: string, d: unknown, v: unknown) => Pred;
// `==` for numbers and bigints: exact for same-typed values, and tolerant of int64 held as strings.
// The relational makers are chosen only for numeric fields (fastKey), so both sides are Ordered.
const ONE: Record<string, Maker1> = {
  eq: (k, d, v) => (r) => ((r as Message)[k] ?? d) === v,
  ne: (k, d, v) => (r) => ((r as Message)[k] ?? d) !== v,
  eqN: (k, d, v) => (r) => ((r as Message)[k] ?? d) == v,
  neN: (k, d, v) => (r) => ((r as Message)[k] ?? d) != v,
  '<': (k, d, v) => (r) => (((r as Message)[k] ?? d) as Ordered) < (v as Ordered),
  '<=': (k, d, v) => (r) => (((r as Message)[k] ?? d) as Ordered) <= (v as Ordered),
  '>': (k, d, v) => (r) => (((r as Message)[k] ?? d) as Ordered) > (v as Ordered),
  '>=': (k, d, v) => (r) => (((r as Message)[k] ?? d) as Ordered) >= (v as Ordered),
};
const TWO: Record<string, Maker2> = {
  eq: (a, b, d, v) => (r) => ((r as Message)[a]?.[b] ?? d) === v,
  ne: (a, b, d, v) => (r) => ((r as Message)[a]?.[b] ?? d) !== v,
  eqN: (a, b, d, v) => (r) => ((r as Message)[a]?.[b] ?? d) == v,
  neN: (a, b, d, v) => (r) => ((r as Message)[a]?.[b] ?? d) != v,
  '<': (a, b, d, v) => (r) => (((r as Message)[a]?.[b] ?? d) as Ordered) < (v as Ordered),
  '<=': (a, b, d, v) => (r) => (((r as Message)[a]?.[b] ?? d) as Ordered) <= (v as Ordered),
  '>': (a, b, d, v) => (r) => (((r as Message)[a]?.[b] ?? d) as Ordered) > (v as Ordered),
  '>=': (a, b, d, v) => (r) => (((r as Message)[a]?.[b] ?? d) as Ordered) >= (v as Ordered),
};

const isNumeric = (t: FieldType): boolean =>
  t.kind === 'int32' ||
  t.kind === 'uint32' ||
  t.kind === 'int64' ||
  t.kind === 'uint64' ||
  t.kind === 'duration' ||
  t.kind === 'timestamp';

/** The fast-path maker key for a comparison, or undefined when it needs the generic path. */
function fastKey(op: CompareOp, lit: Literal, type: FieldType): string | undefined {
  if (lit.kind === 'string') {
    if (lit.wildcard !== 'none' || lit.text === undefined) return undefined;
    return op === '=' ? 'eq' : op === '!=' ? 'ne' : undefined;
  }
  if (lit.kind === 'enum' && Object.keys(lit.table.aliases).length > 0) return undefined;
  if (op === '=') return isNumeric(type) ? 'eqN' : 'eq';
  if (op === '!=') return isNumeric(type) ? 'neN' : 'ne';
  return isNumeric(type) ? op : undefined;
}

function compileRestriction(node: CheckedRestriction): Pred {
  const { path, test } = node;
  if (path.simple && test.kind === 'compare') {
    const key = fastKey(test.op, test.value, path.type);
    const fields = path.steps as readonly Extract<PathStep, { kind: 'field' }>[];
    const d = defaultOf(path.type);
    const v = literalValue(test.value, path.type);
    if (key !== undefined && fields.length === 1) return (ONE[key] as Maker1)(fields[0]!.wire, d, v);
    if (key !== undefined && fields.length === 2) return (TWO[key] as Maker2)(fields[0]!.wire, fields[1]!.wire, d, v);
  }
  return compileSteps(path.steps, 0, finalPredicate(test, path.type, path.optional));
}

/** The test applied to the value at the end of the path (undefined when absent). */
function finalPredicate(test: Test, type: FieldType, optional: boolean): Pred {
  switch (test.kind) {
    case 'present':
      if (type.kind === 'message' || optional) return (v) => v !== undefined && v !== null;
      return presentPredicate(type);
    case 'nonEmpty':
      return type.kind === 'list'
        ? (v) => Array.isArray(v) && v.length > 0
        : (v) => {
            if (v === undefined || v === null) return false;
            for (const _ in v) return true;
            return false;
          };
    case 'hasKey': {
      const key = test.key;
      return (v) => v !== undefined && v !== null && Object.hasOwn(v, key);
    }
    case 'contains': {
      const el = (type.kind === 'list' ? type.element : type) as FieldType;
      const p = valuePredicate({ kind: 'compare', op: '=', value: test.value }, el);
      const d = defaultOf(el);
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (p(v[i] ?? d)) return true;
        return false;
      };
    }
    case 'compare': {
      const p = valuePredicate(test, type);
      const d = defaultOf(type);
      return (v) => p(v ?? d);
    }
  }
}

function presentPredicate(type: FieldType): Pred {
  const d = defaultOf(type);
  return (v) => v !== undefined && v !== null && v !== d;
}

/**
 * A predicate over a leaf value that is already defaulted (never undefined). `present` here means
 * "not the default": what a NULL column read as its default must satisfy, for the SQL translator.
 */
export function valuePredicate(test: Test, type: FieldType): Pred {
  if (test.kind === 'present') return presentPredicate(type);
  if (test.kind !== 'compare') return () => false;
  const { op, value: lit } = test;
  if (lit.kind === 'string') return stringPredicate(op, lit);
  if (lit.kind === 'enum') {
    const name = lit.name;
    const aliases = lit.table.aliases as Record<string, string | undefined>;
    const canon = Object.keys(aliases).length === 0 ? (v: string) => v : (v: string) => aliases[v] ?? v;
    return op === '=' ? (v) => canon(v as string) === name : (v) => canon(v as string) !== name;
  }
  const v0 = literalValue(lit, type);
  // a bool literal is only ever compared with = or != (the checker refuses < on a bool field)
  const o0 = v0 as Ordered;
  switch (op) {
    case '=':
      return (v) => v == v0;
    case '!=':
      return (v) => v != v0;
    case '<':
      return (v) => (v as Ordered) < o0;
    case '<=':
      return (v) => (v as Ordered) <= o0;
    case '>':
      return (v) => (v as Ordered) > o0;
    case '>=':
      return (v) => (v as Ordered) >= o0;
  }
}

function stringPredicate(op: CompareOp, lit: Extract<Literal, { kind: 'string' }>): Pred {
  const t = lit.text;
  if (op === '=' || op === '!=') {
    let eq: Pred;
    if (t === undefined)
      eq = () => false; // invalid UTF-8 equals no string
    else if (lit.wildcard === 'any') eq = () => true;
    else if (lit.wildcard === 'prefix') eq = (v) => typeof v === 'string' && v.startsWith(t);
    else if (lit.wildcard === 'suffix') eq = (v) => typeof v === 'string' && v.endsWith(t);
    else if (lit.wildcard === 'contains') eq = (v) => typeof v === 'string' && v.includes(t);
    else return op === '=' ? (v) => v === t : (v) => v !== t;
    return op === '=' ? eq : (v) => !eq(v);
  }
  const bytes = lit.bytes;
  const cmp: (v: string) => number =
    t !== undefined ? (v) => compareUtf8(v, t) : (v) => compareBytes(utf8Bytes(v), bytes);
  // a string literal is compared with < only on a string field (the checker's rule)
  switch (op) {
    case '<':
      return (v) => cmp(v as string) < 0;
    case '<=':
      return (v) => cmp(v as string) <= 0;
    case '>':
      return (v) => cmp(v as string) > 0;
    case '>=':
      return (v) => cmp(v as string) >= 0;
  }
}

/** A getter for a run of field names (undefined when any link is missing). */
export function fieldGetter(keys: readonly string[]): Getter {
  if (keys.length === 0) return (o) => o;
  if (keys.length === 1) {
    const [a] = keys as [string];
    return (o) => (o as Message | undefined)?.[a];
  }
  if (keys.length === 2) {
    const [a, b] = keys as [string, string];
    return (o) => (o as Message | undefined)?.[a]?.[b];
  }
  if (keys.length === 3) {
    const [a, b, c] = keys as [string, string, string];
    return (o) => (o as Message | undefined)?.[a]?.[b]?.[c];
  }
  return (o) => {
    let v = o as Message | undefined;
    for (let i = 0; i < keys.length && v !== undefined && v !== null; i++) v = v[keys[i] as string];
    return v ?? undefined;
  };
}

/** Composes field reads, list iteration (any element) and map lookups before `final`. */
function compileSteps(steps: readonly PathStep[], from: number, final: Pred): Pred {
  const keys: string[] = [];
  let j = from;
  for (; j < steps.length; j++) {
    const s = steps[j] as PathStep;
    if (s.kind !== 'field') break;
    keys.push(s.wire);
  }
  const get = fieldGetter(keys);
  if (j === steps.length) return (o) => final(get(o));
  const step = steps[j] as PathStep;
  const inner = compileSteps(steps, j + 1, final);
  if (step.kind === 'each') {
    return (o) => {
      const l = get(o);
      if (!Array.isArray(l)) return false;
      for (let i = 0; i < l.length; i++) if (inner(l[i])) return true;
      return false;
    };
  }
  const key = (step as Extract<PathStep, { kind: 'key' }>).key;
  return (o) => {
    const m = get(o) as Record<string, unknown> | undefined;
    if (m === undefined || m === null || !Object.hasOwn(m, key)) return false;
    return inner(m[key]);
  };
}
