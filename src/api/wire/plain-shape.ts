/**
 * Constructors of plain records: each makes objects whose prototype is Object.prototype and
 * that have no own properties, like `{}`, but V8 tracks the objects of each constructor on their
 * own, so the in-object fields of a message's records are sized for that message (slack tracking)
 * instead of growing a property array field by field.
 */

/** Makes an empty plain record. */
export type PlainShape = new () => Record<string, unknown>;

/** True when `new f()` makes a plain record: a function (not an arrow) whose prototype is Object.prototype. */
function makesPlainRecords(f: unknown): f is PlainShape {
  return typeof f === 'function' && f.prototype === Object.prototype;
}

/** A new constructor of plain records (one per message schema). */
export function plainShape(): PlainShape {
  const Shape = function () {};
  Shape.prototype = Object.prototype;
  if (!makesPlainRecords(Shape)) throw new Error('cannot make a constructor of plain records');
  return Shape;
}
