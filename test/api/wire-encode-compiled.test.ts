import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeInt64 } from '../../src/api/codec/int64.ts';
import { formatWireDuration } from '../../src/api/codec/duration.ts';
import type { JsonValue } from '../../src/api/codec/lossless-json.ts';
import { formatTimestamp } from '../../src/api/codec/timestamp.ts';
import type { FieldType, MessageSchema } from '../../src/api/schema/fields.ts';
import { OPERATION_NAMES, OPERATIONS } from '../../src/api/schema/operations.ts';
import { decodeAnswer } from '../../src/api/wire/answers.ts';
import { defaultValue } from '../../src/api/wire/defaults.ts';
import { encodeMessage } from '../../src/api/wire/encode.ts';
import { answerArb } from '../helpers/wire-gen.ts';

/** The encoder as it was before it was compiled: field by field, value by value (the reference). */
function referenceMessage(schema: MessageSchema, value: Record<string, unknown>): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  const absent = value.$absent as readonly string[] | undefined;
  for (const name in schema.fields) {
    const spec = schema.fields[name]!;
    if (absent !== undefined && absent.includes(name)) continue;
    const v = value[name];
    if (v === undefined) {
      if (spec.presence === 'always') out[name] = referenceValue(spec.type, defaultValue(spec.type));
      continue;
    }
    out[name] = referenceValue(spec.type, v);
  }
  const unknown = value.$unknown as Record<string, JsonValue> | undefined;
  if (unknown !== undefined) for (const key in unknown) if (!(key in out)) out[key] = unknown[key]!;
  return out;
}

function referenceValue(type: FieldType, v: unknown): JsonValue {
  switch (type.kind) {
    case 'int64':
    case 'uint64':
      return encodeInt64(v as bigint);
    case 'duration':
      return formatWireDuration(v as bigint);
    case 'timestamp':
      return formatTimestamp(v as bigint);
    case 'message':
      return referenceMessage(type.message, v as Record<string, unknown>);
    case 'list':
      return (v as unknown[]).map((e) => referenceValue(type.element, e));
    case 'map': {
      const out: { [key: string]: JsonValue } = {};
      const src = v as Record<string, unknown>;
      for (const key in src) out[key] = referenceValue(type.value, src[key]);
      return out;
    }
    default:
      return v as JsonValue;
  }
}

/** The tree with its key order made visible (toEqual ignores the order of keys). */
const ordered = (v: JsonValue): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));

describe('the compiled message encoder', () => {
  it.each(OPERATION_NAMES)('encodes any decoded %s answer as the field-by-field reference does', (op) => {
    const schema = OPERATIONS[op].response;
    fc.assert(
      fc.property(answerArb(op), (tree) => {
        let value: Record<string, unknown>;
        try {
          value = decodeAnswer(op, tree) as Record<string, unknown>;
        } catch {
          return; // not an answer: nothing to encode
        }
        const got = encodeMessage(schema, value);
        const want = referenceMessage(schema, value);
        expect(got).toEqual(want);
        expect(ordered(got)).toBe(ordered(want));
      }),
      { numRuns: 150 },
    );
  });

  it('writes the defaults of unset plain fields and leaves unset optional ones out', () => {
    const schema = OPERATIONS.GetIcebergStatus.response;
    expect(ordered(encodeMessage(schema, {}))).toBe(ordered(referenceMessage(schema, {})));
  });

  it('gives the same trees where code generation is forbidden', () => {
    const script = `
      const { encodeAnswer } = await import('./src/api/wire/answers.ts');
      const { ConnectionWorld } = await import('./test/helpers/connection-answers.ts');
      let refused = false;
      try { new Function('return 1'); } catch { refused = true; }
      const world = new ConnectionWorld({ connections: 40, seed: 5, unknownFields: true });
      process.stdout.write(JSON.stringify({ refused, text: encodeAnswer('ListKafkaConnections', world.next().answer) }));
    `;
    const run = (flags: string[]): { refused: boolean; text: string } =>
      JSON.parse(
        execFileSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], {
          cwd: new URL('../..', import.meta.url),
          encoding: 'utf8',
        }),
      ) as { refused: boolean; text: string };
    const refused = run(['--disallow-code-generation-from-strings']);
    const compiled = run([]);
    expect(refused.refused).toBe(true);
    expect(compiled.refused).toBe(false);
    expect(refused.text).toBe(compiled.text);
  });
});
