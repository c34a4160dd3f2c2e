/**
 * Constructors of plain records: each makes objects whose prototype is Object.prototype and
 * that have no own properties, like `{}`, but V8 tracks the objects of each constructor on their
 * own, so the in-object fields of a message's records are sized for that message (slack tracking)
 * instead of growing a property array field by field.
 */

/** Makes an empty plain record. */
export type PlainShape = new () => Record<string, unknown>;

/** A new constructor of plain records (one per message schema). */
export function plainShape(): PlainShape {
  // TypeScript gives no construct signature to a function expression; the prototype assignment
  // below makes `new` on it create exactly a plain object.
  const Shape = function (this: object) {} as unknown as PlainShape;
  Shape.prototype = Object.prototype;
  return Shape;
}
