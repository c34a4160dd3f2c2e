/**
 * The JSON bytes written straight from decoded rows (row-bytes.ts, json-rows.ts) are, byte for byte,
 * what formatJson writes of encodeMessage's tree, at every depth the answers use, for random rows
 * of every resource's schema: int64 beyond 2^53 and negative, unsigned 64, control, C1, bidi and
 * line-separator characters, absent and default fields, unknown enum names, empty maps and lists.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { FieldType, MessageSchema } from '../../src/api/schema/fields.ts';
import { RESOURCES, RESOURCE_NAMES, type PollRow, type ResourceName } from '../../src/api/schema/resources.ts';
import type { QueryResult } from '../../src/report/query.ts';
import {
  encodeRow,
  encodeSample,
  formatJson,
  queryToJson,
  queryToJsonText,
  queryToNdjson,
} from '../../src/report/render/json.ts';
import { ByteOut } from '../../src/report/render/byte-out.ts';
import { itemBytes } from '../../src/report/render/json-rows.ts';
import { TERMINAL_UNSAFE_STRINGS } from '../helpers/unsafe-strings.ts';

const nasty = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  // the terminal's unsafe characters, alone and after a letter; an escape sequence; integer-like and empty keys
  fc.constantFrom(...TERMINAL_UNSAFE_STRINGS, 'a\u2029', '\u2066x', '\u001b[2J', '10', '2', ''),
);
const NANOS_MAX_DURATION = 315_576_000_000n * 1_000_000_000n;

/** A decoded value of a field type (maps with integer-like keys, which objects order first). */
function valueOf(type: FieldType, depth: number): fc.Arbitrary<unknown> {
  switch (type.kind) {
    case 'string':
      return nasty;
    case 'enum':
      return fc.oneof(fc.constantFrom(...type.table.values), fc.constantFrom('7', '-1', 'NOT_A_NAME'), nasty);
    case 'bool':
      return fc.boolean();
    case 'int32':
      return fc.oneof(fc.integer(), fc.constantFrom(0, -0, -2147483648, 2147483647));
    case 'uint32':
      return fc.integer({ min: 0, max: 4294967295 });
    case 'int64':
      return fc.oneof(fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n), fc.constantFrom(2n ** 53n + 1n, -(2n ** 63n), 0n));
    case 'uint64':
      return fc.oneof(fc.bigInt(0n, 2n ** 64n - 1n), fc.constant(2n ** 64n - 1n));
    case 'duration':
      return fc.bigInt(-NANOS_MAX_DURATION, NANOS_MAX_DURATION);
    case 'timestamp':
      return fc.oneof(fc.bigInt(-62_135_596_800n * 10n ** 9n, 253_402_300_799n * 10n ** 9n), fc.constant(0n));
    case 'message':
      return messageOf(type.message, depth + 1);
    case 'list':
      return fc.array(valueOf(type.element, depth + 1), { maxLength: depth > 2 ? 1 : 3 });
    case 'map':
      return fc.dictionary(fc.oneof(nasty, fc.constantFrom('0', '10', '2', '17')), valueOf(type.value, depth + 1), {
        maxKeys: 3,
      });
  }
}

/** A decoded message: each plain field set or left undefined (its default), optional fields set or not, sometimes `$absent`. */
function messageOf(schema: MessageSchema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(schema.fields);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const n of names) model[n] = fc.option(valueOf(schema.fields[n]!.type, depth), { nil: undefined, freq: 4 });
  const always = names.filter((n) => schema.fields[n]!.presence === 'always');
  return fc.tuple(fc.record(model), fc.option(fc.subarray(always), { nil: undefined, freq: 3 })).map(([m, absent]) => {
    const out: Record<string, unknown> = {};
    for (const n of names) if (m[n] !== undefined) out[n] = m[n];
    if (absent !== undefined && absent.length > 0) out.$absent = absent;
    return out;
  });
}

/** `o` and everything in it, frozen. */
function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null && !Object.isFrozen(o)) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** A poll with the two fields a sample's JSON reads (the rest is never looked at). */
function poll(id: bigint, startTime: bigint): PollRow {
  const p: Pick<PollRow, 'id' | 'startTime'> = { id, startTime };
  return p as PollRow;
}

function result(resource: ResourceName, rows: object[], range: boolean): QueryResult {
  const base = { resource, filter: 'x = "\u202e"', orderBy: '', rows, total: rows.length };
  if (!range) return { ...base, mode: 'at', at: 5n, poll: poll(3n, 4n), failures: 0 };
  const samples = rows.map((row, i) => ({ poll: poll(BigInt(i) * 2n ** 60n, BigInt(i) * 10n ** 15n), row }));
  return { ...base, mode: 'range', since: 1n, until: 2n, samples };
}

describe('JSON text written straight from rows', () => {
  for (const resource of RESOURCE_NAMES) {
    it(`is formatJson(encodeRow(...)) for random ${resource} rows, as-of and range, json and ndjson`, () => {
      fc.assert(
        fc.property(fc.array(messageOf(RESOURCES[resource].schema), { maxLength: 4 }), fc.boolean(), (rows, range) => {
          const r = result(resource, rows, range);
          expect(queryToJsonText(r)).toBe(formatJson(queryToJson(r)));
          const lines = range
            ? r.samples!.map((s) => formatJson(encodeSample(resource, s), 0))
            : rows.map((row) => formatJson(encodeRow(resource, row), 0));
          expect(queryToNdjson(r)).toBe(lines.map((l) => `${l}\n`).join(''));
          // frozen, as the store shares them: the same bytes, and again when a frozen map's bytes are copied
          const frozen = result(resource, rows.map(deepFreeze), range);
          for (let pass = 0; pass < 2; pass++) expect(queryToJsonText(frozen)).toBe(formatJson(queryToJson(frozen)));
        }),
        { numRuns: 150 },
      );
    });
  }

  it('writes the rows itself, without the tree, unless a row has unknown fields or a value of another type', () => {
    const schema = RESOURCES.connections.schema;
    fc.assert(
      fc.property(messageOf(schema), fc.boolean(), (row, range) => {
        let viaTree = 0;
        const tree = (): string => `${viaTree++}`;
        const out = new ByteOut(() => undefined);
        const item = range ? { poll: poll(1n, 2n), row } : row;
        for (const indent of [0, 2] as const) itemBytes('connections', range, indent, tree)(item, out);
        expect(viaTree).toBe(0);
      }),
      { numRuns: 100 },
    );
    const rows = [{ nodeId: 1, $unknown: { extra: 12345678901234567890n } }, { nodeId: Number.NaN }, { clientId: 7 }];
    for (const row of rows) {
      const r = result('connections', [row], false);
      expect(queryToJsonText(r)).toBe(formatJson(queryToJson(r)));
      let viaTree = 0;
      itemBytes('connections', false, 2, () => `${viaTree++}`)(row, new ByteOut(() => undefined));
      expect(viaTree).toBe(1);
    }
  });

  it('copies only frozen maps: a map changed after it was written is written as it is now', () => {
    const apiVersions: Record<string, number> = { '1': 2 };
    const row = { nodeId: 1, apiVersions };
    const r = result('connections', [row], false);
    expect(queryToJsonText(r)).toBe(formatJson(queryToJson(r)));
    row.apiVersions['3'] = 4;
    expect(queryToJsonText(r)).toContain('"3": 4');
    expect(queryToJsonText(r)).toBe(formatJson(queryToJson(r)));
  });
});
