/**
 * Records built in one step: a function per message schema that makes the record from its
 * values in schema order with an object literal. Faster than adding the properties one by one,
 * and V8 can allocate such objects straight in the old generation when they live long, as
 * decoded answers do. The object is the one adding the properties in schema order would make.
 */

/** Builds a record from its field values, in schema order. */
export type RecordLiteral = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * `(v) => ({ "a": v[0], "b": v[1], ... })` for these field names: generated code made only of the
 * schema's own names (quoted by JSON.stringify), never of anything read from an answer; undefined
 * for a name a literal would treat specially (`__proto__` sets the prototype), or when the process
 * forbids code generation (node --disallow-code-generation-from-strings).
 */
export function recordLiteral(names: readonly string[]): RecordLiteral | undefined {
  if (names.includes('__proto__')) return undefined;
  const body = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  return generate<RecordLiteral>(`return { ${body} };`);
}

/** A function of one parameter `v` with this body, or undefined when code generation is refused. */
export function generate<F>(body: string): F | undefined {
  try {
    return new Function('v', body) as F;
  } catch {
    return undefined;
  }
}
