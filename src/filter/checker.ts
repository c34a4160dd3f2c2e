/**
 * The checker: resolves every path against the resource schema once, checks operators and
 * literal forms against the dialect's rules, and turns literals into typed values, so that
 * evaluation never re-parses anything.
 */
import { canonicalEnumName, type EnumTable, type FieldType } from '../api/schema/index.ts';
import { CodecError } from '../api/codec/errors.ts';
import { parseIntLiteral } from '../api/codec/int64.ts';
import { parseFilterDuration } from '../api/codec/duration.ts';
import { parseTimestamp } from '../api/codec/timestamp.ts';
import type {
  CheckedNode,
  CompareOp,
  CheckedRestriction,
  Dialect,
  Literal,
  ResolvedPath,
  SyntaxLiteral,
  SyntaxNode,
  SyntaxRestriction,
  Test,
  Wildcard,
} from './ast.ts';
import { didYouMean, FilterError, nearest, quote, type FilterWarning } from './errors.ts';
import { mapKey, resolvePath, typeName, type ResourceRef } from './field-paths.ts';

/** Context of one check. */
interface Ctx {
  readonly resource: ResourceRef;
  readonly dialect: Dialect;
  readonly input: string;
  readonly warnings: FilterWarning[];
}

/** Checks a syntax tree against a resource; returns the checked tree and any warnings. */
export function checkTree(
  node: SyntaxNode,
  opts: { resource: ResourceRef; dialect: Dialect; input: string },
): { ast: CheckedNode; warnings: FilterWarning[] } {
  const ctx: Ctx = { ...opts, warnings: [] };
  return { ast: check(node, ctx), warnings: ctx.warnings };
}

function check(node: SyntaxNode, ctx: Ctx): CheckedNode {
  switch (node.kind) {
    case 'and':
      return {
        kind: 'and',
        implicit: node.implicit,
        children: node.children.map((c) => check(c, ctx)),
        start: node.start,
        end: node.end,
      };
    case 'or':
      return { kind: 'or', children: node.children.map((c) => check(c, ctx)), start: node.start, end: node.end };
    case 'not':
      return { kind: 'not', child: check(node.child, ctx), start: node.start, end: node.end };
    case 'restriction':
      return checkRestriction(node, ctx);
  }
}

const isComposite = (t: FieldType): boolean => t.kind === 'message' || t.kind === 'list' || t.kind === 'map';

function checkRestriction(r: SyntaxRestriction, ctx: Ctx): CheckedRestriction {
  const path = resolvePath(ctx.resource, r.path, ctx.dialect, ctx.input);
  const type = path.type;
  const fail = (msg: string, start: number, end: number, suggestion?: string): never => {
    throw new FilterError(msg, ctx.input, start, end, suggestion);
  };
  const done = (test: Test): CheckedRestriction => ({
    kind: 'restriction',
    path,
    op: r.op,
    test,
    start: r.start,
    end: r.end,
  });
  if (ctx.dialect === 'server' && isComposite(type)) {
    const what = type.kind === 'message' ? 'a message' : type.kind === 'map' ? 'a map' : 'a repeated field';
    const hint =
      type.kind === 'message' ? firstFieldHint(path, type) : 'use the extended dialect locally (":" tests membership)';
    return fail(
      `${path.text} is ${what}: the cluster compares only scalar and enum fields`,
      r.path.start,
      r.path.end,
      hint,
    );
  }
  const v = r.value;
  if (r.op === ':') {
    if (!v.quoted && v.raw === '*') {
      return done(type.kind === 'list' || type.kind === 'map' ? { kind: 'nonEmpty' } : { kind: 'present' });
    }
    if (type.kind === 'message') {
      return fail(
        `":" on the message ${path.text} only tests presence`,
        v.start,
        v.end,
        `write ${path.text}:*, or compare one of its fields`,
      );
    }
    if (type.kind === 'map') {
      const keyText = literalText(v, ctx, path);
      return done({
        kind: 'hasKey',
        key: mapKey(type.keyKind, keyText, ctx.input, v.start, v.end),
        keyIsInt: type.keyKind === 'int32',
      });
    }
    if (type.kind === 'list') {
      if (isComposite(type.element)) {
        return fail(
          `${path.text} is ${typeName(type)}: ":" can only test its presence here`,
          v.start,
          v.end,
          `write ${path.text}:*, or compare a field of its elements`,
        );
      }
      return done({ kind: 'contains', value: convert(type.element, v, '=', path, ctx) });
    }
    return done({ kind: 'compare', op: '=', value: convert(type, v, '=', path, ctx) });
  }
  if (isComposite(type)) {
    const what = type.kind === 'message' ? 'a message' : `${typeName(type)}`;
    return fail(
      `cannot compare ${path.text} with ${r.op}: it is ${what}`,
      r.opSpan.start,
      r.opSpan.end,
      type.kind === 'message'
        ? `${path.text}:* tests presence; ${firstFieldHint(path, type)}`
        : `use ":" to test membership, e.g. ${path.text}:value`,
    );
  }
  return done({ kind: 'compare', op: r.op, value: convert(type, v, r.op, path, ctx) });
}

function firstFieldHint(path: ResolvedPath, type: FieldType): string {
  if (type.kind !== 'message') return 'compare one of its fields';
  const first = Object.keys(type.message.fields)[0];
  return first === undefined
    ? 'compare one of its fields'
    : `compare one of its fields, e.g. ${path.text}.${first.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
}

/** The literal's value as text (quoted strings decoded); invalid UTF-8 is refused outside strings. */
function literalText(v: SyntaxLiteral, ctx: Ctx, path: ResolvedPath): string {
  if (v.text === undefined) {
    throw new FilterError(
      `invalid value for ${path.text}: the escapes do not form valid UTF-8`,
      ctx.input,
      v.start,
      v.end,
    );
  }
  return v.text;
}

/** Converts a literal to a typed value for a scalar or enum field, enforcing the dialect's rules. */
function convert(type: FieldType, v: SyntaxLiteral, op: CompareOp, path: ResolvedPath, ctx: Ctx): Literal {
  const server = ctx.dialect === 'server';
  const fail = (msg: string, suggestion?: string): never => {
    throw new FilterError(msg, ctx.input, v.start, v.end, suggestion);
  };
  const field = `${path.text} (${typeName(type)})`;
  if (type.kind === 'string') {
    if (server && !v.quoted) {
      return fail(
        `${path.text} is a string field: the cluster needs a double-quoted literal`,
        `write ${path.text} ${op} ${JSON.stringify(v.raw)}`,
      );
    }
    const wild =
      !server && (op === '=' || op === '!=')
        ? wildcardOf(v)
        : { wildcard: 'none' as Wildcard, bytes: v.bytes, text: v.text };
    if (type.values !== undefined && wild.wildcard === 'none' && (op === '=' || op === '!=')) {
      const given = wild.text ?? '';
      if (!type.values.includes(given)) {
        const hint = didYouMean(nearest(given, type.values));
        ctx.warnings.push({
          message: `${quote(given)} is never a value of ${path.text} (one of ${type.values.join(', ')}): it ${op === '!=' ? 'excludes nothing' : 'matches nothing'}${hint === undefined ? '' : `; ${hint}`}`,
          start: v.start,
          end: v.end,
        });
      }
    }
    return { kind: 'string', ...wild };
  }
  if (server && v.quoted) {
    return fail(
      `${field}: the cluster needs an unquoted literal, not a quoted string`,
      `write ${path.text} ${op} ${v.raw}`,
    );
  }
  const text = literalText(v, ctx, path);
  const codec = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof CodecError) return fail(`invalid value ${quote(text)} for ${field}: ${err.message}`);
      throw err;
    }
  };
  switch (type.kind) {
    case 'int32':
    case 'uint32':
    case 'int64':
    case 'uint64': {
      const width = type.kind;
      return { kind: 'int', value: codec(() => parseIntLiteral(text, width)) };
    }
    case 'duration':
      return { kind: 'duration', nanos: codec(() => parseFilterDuration(text)) };
    case 'timestamp':
      return { kind: 'timestamp', nanos: codec(() => parseTimestamp(text)) };
    case 'bool':
      if (op !== '=' && op !== '!=') return fail(`${path.text} is a bool: only = and != are allowed, not ${op}`);
      if (text === 'true' || text === 'false') return { kind: 'bool', value: text === 'true' };
      return fail(
        `invalid value ${quote(text)} for ${field}: expected true or false`,
        /^(true|false)$/i.test(text) ? `booleans are lowercase: ${text.toLowerCase()}` : undefined,
      );
    case 'enum':
      if (op !== '=' && op !== '!=') return fail(`${path.text} is an enum: only = and != are allowed, not ${op}`);
      return enumLiteral(type.table, text, v, op, path, ctx);
    default:
      return fail(`cannot compare ${field} with a value`);
  }
}

function wildcardOf(v: SyntaxLiteral): { wildcard: Wildcard; bytes: Uint8Array; text: string | undefined } {
  const { starAtStart: s, starAtEnd: e, bytes } = v;
  if (!s && !e) return { wildcard: 'none', bytes, text: v.text };
  if (s && bytes.length <= 2 && (e || bytes.length === 1))
    return { wildcard: 'any', bytes: new Uint8Array(0), text: '' };
  const core = bytes.subarray(s ? 1 : 0, e ? bytes.length - 1 : bytes.length);
  const wildcard: Wildcard = s && e ? 'contains' : s ? 'suffix' : 'prefix';
  const text = v.text === undefined ? undefined : v.text.slice(s ? 1 : 0, e ? v.text.length - 1 : v.text.length);
  return { wildcard, bytes: Uint8Array.from(core), text };
}

function enumLiteral(
  table: EnumTable,
  text: string,
  v: SyntaxLiteral,
  op: string,
  path: ResolvedPath,
  ctx: Ctx,
): Literal {
  const known =
    canonicalEnumName(table, text) ??
    (ctx.dialect === 'extended' ? canonicalEnumName(table, table.prefix + text) : undefined);
  if (known !== undefined) return { kind: 'enum', name: known, number: table.values.indexOf(known), table };
  // the name meant, whatever its case and with or without the type's prefix (`open` → KAFKA_CONNECTION_STATE_OPEN)
  const upper = text.toUpperCase();
  const meant =
    canonicalEnumName(table, upper) ??
    (upper.startsWith(table.prefix) ? undefined : canonicalEnumName(table, table.prefix + upper));
  const short = upper.startsWith(table.prefix) ? upper.slice(table.prefix.length) : upper;
  const shortNames = table.values.map((n) => (n.startsWith(table.prefix) ? n.slice(table.prefix.length) : n));
  const close = nearest(short, shortNames).map((n) => (table.values.includes(n) ? n : table.prefix + n));
  const hint = meant !== undefined ? `did you mean ${meant}?` : didYouMean(close);
  ctx.warnings.push({
    message: `${quote(text)} is not a value of ${table.typeName} (${path.text}): it ${op === '!=' ? 'excludes nothing' : 'matches nothing'}${hint === undefined ? '' : `; ${hint}`}`,
    start: v.start,
    end: v.end,
  });
  return { kind: 'enum', name: text, number: -1, table };
}
