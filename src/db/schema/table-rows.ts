/**
 * Row types of prepared statements, from the drizzle tables: a statement selecting some columns
 * of a table (aliased to the schema's property names) is typed `Pick<RowOf<typeof table>, ...>`,
 * so its rows follow the schema instead of a hand-written cast.
 */

/** The row of a drizzle table, as drizzle reads it (property names, JS types). */
export type RowOf<T extends { readonly $inferSelect: object }> = T['$inferSelect'];

/** Some columns of a drizzle table's row. */
export type ColumnsOf<T extends { readonly $inferSelect: object }, K extends keyof RowOf<T>> = Pick<RowOf<T>, K>;

/** A row as a statement with safeIntegers() reads it: every integer a bigint. */
export type SafeIntegers<R> = {
  readonly [K in keyof R]: R[K] extends number ? bigint : R[K] extends number | null ? bigint | null : R[K];
};

/** These columns of a table's row, in order, as a raw() safeIntegers() statement returns them. */
export type TupleOf<T extends { readonly $inferSelect: object }, K extends readonly (keyof RowOf<T>)[]> = {
  -readonly [I in keyof K]: SafeIntegers<RowOf<T>>[K[I]];
};
