/**
 * The rows (or samples) of a query's JSON and ndjson answers written straight from the decoded
 * rows as bytes (row-bytes.ts), each item the text `formatJson` writes of its encoded tree at the
 * item's depth; an item the writer does not cover takes the tree path the caller gives.
 */
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import { RESOURCES, type PollRow, type ResourceName } from '../../api/schema/resources.ts';
import type { ByteOut } from './byte-out.ts';
import { asciiBytes, messageBytes, NOT_COVERED, type ByteWriter } from './row-bytes.ts';

/** Writes an item of an answer (a row, or a sample of a range query). */
export type ItemBytes = (item: unknown, o: ByteOut) => void;

/** The depth of an answer's items in the JSON document (the document, its array, the item). */
const ITEM_DEPTH = 2;

/**
 * The writer of a query answer's items: rows, or samples (time, pollId, row) when `samples`;
 * indented as the items of the document's array when `indent` is 2, compact when 0. `tree`
 * writes an item the direct writer does not cover, the same way.
 */
export function itemBytes(
  resource: ResourceName,
  samples: boolean,
  indent: 0 | 2,
  tree: (item: unknown) => string,
): ItemBytes {
  const depth = indent === 0 ? 0 : ITEM_DEPTH;
  const direct = samples
    ? sampleBytes(resource, indent, depth)
    : messageBytes(RESOURCES[resource].schema, indent, depth);
  return (item, o) => {
    const start = o.pos;
    try {
      direct(item, o);
    } catch {
      // not covered, or a value the tree path refuses: that path writes it, or throws its own error
      o.pos = start;
      o.text(tree(item));
    }
  };
}

/** A sample `{ time, pollId, row }` at `depth`. */
function sampleBytes(resource: ResourceName, indent: 0 | 2, depth: number): ByteWriter {
  const row = messageBytes(RESOURCES[resource].schema, indent, depth + 1);
  const nl = indent > 0 ? '\n' : '';
  const inner = nl + ' '.repeat(indent * (depth + 1));
  const colon = indent > 0 ? ': ' : ':';
  const time = asciiBytes(`{${inner}"time"${colon}"`);
  const pollId = asciiBytes(`",${inner}"pollId"${colon}"`);
  const rowKey = asciiBytes(`",${inner}"row"${colon}`);
  const close = asciiBytes(`${nl}${' '.repeat(indent * depth)}}`);
  return (v, o) => {
    const s = v as { readonly poll: PollRow; readonly row: unknown };
    const id = s.poll.id as unknown;
    const start = s.poll.startTime as unknown;
    if (typeof id !== 'bigint' || typeof start !== 'bigint') throw NOT_COVERED;
    o.bytes(time);
    o.ascii(formatTimestamp(start));
    o.bytes(pollId);
    o.ascii(id.toString(10));
    o.bytes(rowKey);
    row(s.row, o);
    o.bytes(close);
  };
}
