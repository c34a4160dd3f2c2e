/**
 * fast-check generators for the property and fuzz tests: random decoded rows of any resource
 * (values drawn from small pools so that filters hit), and random filters in either dialect.
 */
import fc from 'fast-check';
import type { FieldType, MessageSchema } from '../../src/api/schema/index.ts';
import { listFieldPaths, type Dialect, type ResourceRef } from '../../src/filter/index.ts';
import { formatFilterDuration, formatFilterTimestamp } from '../../src/filter/printer.ts';
import { specOf } from '../../src/filter/field-paths.ts';

const STRINGS = ['', 'a', 'ab', 'abc', 'b', 'A', 'é', 'café', '🚀', 'Ａ', 'a%_\\', '*', 'x*y', 'say "hi"', 'tab\tx'];
const INT32 = [0, 1, -1, 2, 3, 7, 2147483647, -2147483648];
const INT64 = [0n, 1n, -1n, 2n, 42n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n)];
const DURATIONS = [0n, 1n, 1_000n, 1_000_000n, 1_500_000_000n, 30_000_000_000n, 3_600_000_000_000n, -1_000_000_000n];
const TIMES = [
  0n,
  1n,
  1_756_720_800_000_000_000n,
  1_756_720_800_000_000_001n,
  1_756_724_400_500_000_000n,
  946_684_800_000_000_000n,
];
const KEYS = ['0', '3', '18'];

const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);

/** A random decoded value of a field type. */
function valueArb(type: FieldType, depth: number): fc.Arbitrary<unknown> {
  switch (type.kind) {
    case 'string':
      return pick(STRINGS);
    case 'bool':
      return fc.boolean();
    case 'int32':
      return pick(INT32);
    case 'uint32':
      return pick([0, 1, 2, 4294967295]);
    case 'int64':
      return pick(INT64);
    case 'uint64':
      return pick([0n, 1n, 2n ** 63n, 2n ** 64n - 1n]);
    case 'duration':
      return pick(DURATIONS);
    case 'timestamp':
      return pick(TIMES);
    case 'enum':
      return pick([...type.table.values, `${type.table.prefix}FUTURE`]);
    case 'message':
      return depth > 4 ? fc.constant(undefined) : rowArb(type.message, depth + 1);
    case 'list':
      return depth > 4 ? fc.constant([]) : fc.array(valueArb(type.element, depth + 1), { maxLength: 2 });
    case 'map':
      return fc.dictionary(pick(KEYS), valueArb(type.value, depth + 1), { maxKeys: 2 });
  }
}

/** A random decoded row of a message schema; optional and one-of fields are sometimes absent. */
export function rowArb(schema: MessageSchema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [wire, spec] of Object.entries(schema.fields)) {
    const v = valueArb(spec.type, depth);
    parts[wire] = spec.presence === 'optional' ? fc.option(v, { nil: undefined, freq: 2 }) : v;
  }
  return fc.record(parts).map((r) => {
    for (const k of Object.keys(r)) if (r[k] === undefined) delete r[k];
    return r;
  });
}

/** Random rows of a resource. */
export function rowsArb(resource: ResourceRef, max = 12): fc.Arbitrary<Record<string, unknown>[]> {
  return fc.array(rowArb(specOf(resource).schema), { minLength: 1, maxLength: max });
}

function quoteLit(s: string): string {
  return `"${s
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\t/g, '\\t')
    .replace(/\*/g, '\\x2A')}"`;
}

/** A literal in filter syntax for a leaf type (always valid for the type). */
function literalArb(type: string, dialect: Dialect, enumValues: readonly string[]): fc.Arbitrary<string> {
  if (type === 'string') {
    const plain = pick(STRINGS).map(quoteLit);
    if (dialect === 'server') return plain;
    return fc.oneof(
      plain,
      pick(STRINGS).chain((s) =>
        pick([
          `"${s.replace(/[\\"*]/g, '')}*"`,
          `"*${s.replace(/[\\"*]/g, '')}"`,
          `"*${s.replace(/[\\"*]/g, '')}*"`,
          '"*"',
        ]),
      ),
    );
  }
  if (type === 'bool') return pick(['true', 'false']);
  if (type === 'int32') return pick(INT32.map(String));
  if (type === 'int64') return pick(INT64.map(String));
  if (type === 'uint32') return pick(['0', '1', '4294967295']);
  if (type === 'uint64') return pick(['0', '1', '9223372036854775808', '18446744073709551615']);
  if (type === 'duration') return pick(DURATIONS.map(formatFilterDuration));
  if (type === 'timestamp') return pick(TIMES.map(formatFilterTimestamp));
  return pick([...enumValues, 'UNKNOWN_VALUE']);
}

/** Random valid-looking comparisons over a resource's paths, combined per the dialect. */
export function filterArb(resource: ResourceRef, dialect: Dialect): fc.Arbitrary<string> {
  const paths = listFieldPaths(resource).filter((p) => (dialect === 'server' ? p.server : true));
  const leaves = paths.filter(
    (p) => !p.type.startsWith('message') && !p.type.startsWith('list') && !p.type.startsWith('map'),
  );
  const composite = paths.filter(
    (p) => p.type.startsWith('list') || p.type.startsWith('map') || p.type.startsWith('message'),
  );
  const enumValues = (p: { type: string }): string[] => {
    const name = p.type.replace(/^enum /, '');
    return ENUMS.get(name) ?? [];
  };
  const comparison = fc.constantFrom(...leaves).chain((p) => {
    const ops = p.type === 'bool' || p.type.startsWith('enum') ? ['=', '!='] : ['=', '!=', '<', '<=', '>', '>='];
    const opArb = dialect === 'extended' ? pick([...ops, ':']) : pick(ops);
    return fc
      .tuple(opArb, literalArb(p.type.startsWith('enum') ? 'enum' : p.type, dialect, enumValues(p)))
      .map(([op, lit]) => {
        const l = op === ':' || op === '=' || op === '!=' ? lit : lit.replace(/^"\*|\*"$/g, '"');
        return `${p.path} ${op} ${l}`;
      });
  });
  if (dialect === 'server') return fc.array(comparison, { minLength: 0, maxLength: 4 }).map((cs) => cs.join(' AND '));
  const presence =
    composite.length === 0
      ? comparison
      : fc.oneof(
          comparison,
          pick(composite).map((p) => `${p.path}:*`),
          pick(leaves).map((p) => `${p.path}:*`),
        );
  const { expr } = fc.letrec<{ expr: string; term: string }>((tie) => ({
    term: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      presence,
      presence,
      tie('expr').map((e) => `(${e})`),
      tie('term').map((t) => `NOT ${t.startsWith('NOT ') || t.startsWith('-') ? `(${t})` : t}`),
    ),
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('term'),
      fc.tuple(tie('term'), tie('term')).map(([a, b]) => `${a} AND ${b}`),
      fc.tuple(tie('term'), tie('term')).map(([a, b]) => `${a} OR ${b}`),
      fc.tuple(tie('term'), tie('term')).map(([a, b]) => `${a} ${b}`),
    ),
  }));
  return expr;
}

/** Enum value names by type name, from every resource schema. */
const ENUMS = new Map<string, string[]>();
function collectEnums(schema: MessageSchema, seen: Set<MessageSchema>): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  for (const spec of Object.values(schema.fields)) {
    let t: FieldType = spec.type;
    while (t.kind === 'list' || t.kind === 'map') t = t.kind === 'list' ? t.element : t.value;
    if (t.kind === 'enum') ENUMS.set(t.table.typeName, [...t.table.values]);
    if (t.kind === 'message') collectEnums(t.message, seen);
  }
}
for (const name of [
  'connections',
  'shadow-links',
  'shadow-tasks',
  'shadow-topics',
  'shadow-partitions',
  'upgrade',
  'upgrade-members',
  'iceberg-topics',
  'iceberg-partitions',
  'polls',
] as const) {
  collectEnums(specOf(name).schema, new Set());
}
