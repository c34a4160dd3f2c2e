/**
 * The rows (or samples) of a query's JSON and ndjson answers written straight from the decoded
 * rows (row-text.ts), each item the text `formatJson` writes of its encoded tree at the item's
 * depth; an item the writer does not cover takes the tree path the caller gives.
 */
import { formatTimestamp } from '../../api/codec/timestamp.ts';
import { RESOURCES, type PollRow, type ResourceName } from '../../api/schema/resources.ts';
import { messageText, NOT_COVERED, type TextWriter } from './row-text.ts';

/** Appends an item of an answer (a row, or a sample of a range query) to `out`, in fragments. */
export type ItemText = (item: unknown, out: string[]) => void;

/** The depth of an answer's items in the JSON document (the document, its array, the item). */
const ITEM_DEPTH = 2;

/**
 * The writer of a query answer's items: rows, or samples (time, pollId, row) when `samples`;
 * indented as the items of the document's array when `indent` is 2, compact when 0. `tree`
 * writes an item the direct writer does not cover, the same way.
 */
export function itemText(
  resource: ResourceName,
  samples: boolean,
  indent: 0 | 2,
  tree: (item: unknown) => string,
): ItemText {
  const depth = indent === 0 ? 0 : ITEM_DEPTH;
  const direct = samples ? sampleText(resource, indent, depth) : messageText(RESOURCES[resource].schema, indent, depth);
  return (item, out) => {
    const start = out.length;
    try {
      direct(item, out);
    } catch {
      // not covered, or a value the tree path refuses: that path writes it, or throws its own error
      out.length = start;
      out.push(tree(item));
    }
  };
}

/** A sample `{ time, pollId, row }` at `depth`. */
function sampleText(resource: ResourceName, indent: 0 | 2, depth: number): TextWriter {
  const row = messageText(RESOURCES[resource].schema, indent, depth + 1);
  const nl = indent > 0 ? '\n' : '';
  const inner = nl + ' '.repeat(indent * (depth + 1));
  const colon = indent > 0 ? ': ' : ':';
  const time = `{${inner}"time"${colon}"`;
  const pollId = `",${inner}"pollId"${colon}"`;
  const rowKey = `",${inner}"row"${colon}`;
  const close = `${nl}${' '.repeat(indent * depth)}}`;
  return (v, out) => {
    const s = v as { readonly poll: PollRow; readonly row: unknown };
    const id = s.poll.id as unknown;
    const start = s.poll.startTime as unknown;
    if (typeof id !== 'bigint' || typeof start !== 'bigint') throw NOT_COVERED;
    out.push(`${time}${formatTimestamp(start)}${pollId}${id.toString(10)}${rowKey}`);
    row(s.row, out);
    out.push(close);
  };
}
