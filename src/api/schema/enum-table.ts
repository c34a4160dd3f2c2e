/** Enum tables: full names in spec order, numeric value = position, UNSPECIFIED = 0. */

/** An enum of the wire contract. */
export interface EnumTable<N extends string = string> {
  /** the protobuf-style type name, e.g. `KafkaConnectionState` */
  readonly typeName: string;
  /** common prefix of every value name, e.g. `KAFKA_CONNECTION_STATE_` */
  readonly prefix: string;
  /** canonical names; the numeric value of a name is its index */
  readonly values: readonly N[];
  /** alternative names accepted on input, mapped to their canonical name */
  readonly aliases: Readonly<Record<string, N>>;
}

/** A value name of an enum table. */
export type EnumName<E> = E extends EnumTable<infer N> ? N : never;

/** Declares an enum table from its prefix and suffixes (spec order, UNSPECIFIED first). */
export function enumTable<const P extends string, const S extends readonly string[]>(
  typeName: string,
  prefix: P,
  suffixes: S,
  aliases: Readonly<Record<string, `${P}${S[number]}`>> = {},
): EnumTable<`${P}${S[number]}`> {
  const values = suffixes.map((s) => `${prefix}${s}` as `${P}${S[number]}`);
  if (!values[0]?.endsWith('_UNSPECIFIED')) throw new Error(`enum ${typeName}: first value must be UNSPECIFIED`);
  return { typeName, prefix, values, aliases };
}

/** The numeric value of a name (aliases share their target's value); -1 for an unknown name. */
export function enumNumber(table: EnumTable, name: string): number {
  const canonical = table.aliases[name] ?? name;
  return table.values.indexOf(canonical);
}

/** The canonical name of a known name or alias, or undefined. */
export function canonicalEnumName(table: EnumTable, name: string): string | undefined {
  const canonical = table.aliases[name] ?? name;
  return table.values.includes(canonical) ? canonical : undefined;
}

/** The name for a numeric value, or undefined when out of range. */
export function enumNameOf(table: EnumTable, value: number): string | undefined {
  return table.values[value];
}

/** The name without the common prefix, for compact display (`OPEN` for `KAFKA_CONNECTION_STATE_OPEN`). */
export function shortEnumName(table: EnumTable, name: string): string {
  return name.startsWith(table.prefix) ? name.slice(table.prefix.length) : name;
}
