/**
 * encodeMessage compiled per message schema: straight-line code that builds the encoded object
 * with one literal (the schema's always-present fields, in order) and appends the optional ones,
 * instead of a loop over the schema's fields with a switch per value. A message with `$absent`
 * or `$unknown` takes the general path (encode.ts), so the bytes are the same either way.
 * The code is made of the schema's own names (quoted by JSON.stringify) and positions only.
 */
import type { JsonValue } from '../codec/lossless-json.ts';
import type { FieldType, MessageSchema } from '../schema/fields.ts';

/** A message encoder: the decoded message to the JSON tree the server would write. */
export type MessageEncoder = (value: Record<string, unknown>) => { [key: string]: JsonValue };

/** What the generated code calls: the general encoders, and the value encoders of its fields. */
export interface EncoderParts {
  /** encodeMessage's general path (absent or unknown fields) */
  readonly general: MessageEncoder;
  /** the encoded default of a field (an always-present field left undefined), by field position */
  readonly fallback: (index: number) => JsonValue;
  /** a value encoder per field position (unused for the kinds written inline) */
  readonly encoders: readonly ((v: unknown) => JsonValue)[];
}

/** Field kinds whose decoded value is already its JSON value (written inline, no call). */
const INLINE: ReadonlySet<FieldType['kind']> = new Set(['string', 'bool', 'int32', 'uint32', 'enum']);

/**
 * Compiles the encoder of a schema from its parts; undefined when code generation is refused, or
 * for a field name a literal would treat specially (`__proto__`).
 */
export function compileMessageEncoder(schema: MessageSchema, parts: EncoderParts): MessageEncoder | undefined {
  const names = Object.keys(schema.fields);
  if (names.includes('__proto__')) return undefined;
  const specs = names.map((n) => schema.fields[n]!);
  // the literal holds the always-present fields before the first optional one; the rest are appended in order
  const firstOptional = specs.findIndex((s) => s.presence !== 'always');
  const inLiteral = firstOptional < 0 ? names.length : firstOptional;
  const lines: string[] = [
    'const general = v.general, fallback = v.fallback, enc = v.encoders;',
    'return function encode(m) {',
    '  if (m.$absent !== undefined || m.$unknown !== undefined) return general(m);',
  ];
  const value = (i: number): string => {
    const kind = specs[i]!.type.kind;
    return INLINE.has(kind) ? `x${i}` : `enc[${i}](x${i})`;
  };
  names.forEach((name, i) => lines.push(`  const x${i} = m[${JSON.stringify(name)}];`));
  const literal = names
    .slice(0, inLiteral)
    .map((name, i) => `${JSON.stringify(name)}: x${i} === undefined ? fallback(${i}) : ${value(i)}`);
  lines.push(`  const o = { ${literal.join(', ')} };`);
  for (let i = inLiteral; i < names.length; i++) {
    const key = JSON.stringify(names[i]);
    if (specs[i]!.presence === 'always')
      lines.push(`  o[${key}] = x${i} === undefined ? fallback(${i}) : ${value(i)};`);
    else lines.push(`  if (x${i} !== undefined) o[${key}] = ${value(i)};`);
  }
  lines.push('  return o;', '};');
  try {
    const make = new Function('v', lines.join('\n')) as (v: EncoderParts) => MessageEncoder;
    return make(parts);
  } catch {
    return undefined;
  }
}
