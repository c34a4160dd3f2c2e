/**
 * The schema language of the wire contract: one description per message drives decoding,
 * server-style encoding, the filter engine's field paths and the history store.
 */
import type { JsonValue } from '../codec/lossless-json.ts';
import type { EnumTable, EnumName } from './enum-table.ts';

/** Scalar kinds, with the JS type each decodes to. */
export type ScalarKind =
  | 'string' // string
  | 'bool' // boolean
  | 'int32' // number
  | 'uint32' // number
  | 'int64' // bigint
  | 'uint64' // bigint
  | 'duration' // bigint nanoseconds
  | 'timestamp'; // bigint nanoseconds since the epoch, 0n = unset

/** A scalar field type. */
export interface ScalarType<K extends ScalarKind = ScalarKind> {
  readonly kind: K;
  /** a string field that only ever holds one of these names (a filter naming another matches nothing, and says so) */
  readonly values?: readonly string[];
}
/** An enum field type; decodes to the full enum name (unknown names keep their raw text). */
export interface EnumType<E extends EnumTable = EnumTable> {
  readonly kind: 'enum';
  readonly table: E;
}
/** A nested message field type. */
export interface MessageType<M extends MessageSchema = MessageSchema> {
  readonly kind: 'message';
  readonly message: M;
}
/** A repeated field type. */
export interface ListType<T extends FieldType = FieldType> {
  readonly kind: 'list';
  readonly element: T;
}
/** A map field type; keys are always strings on the wire (int keys as decimal strings). */
export interface MapType<T extends FieldType = FieldType> {
  readonly kind: 'map';
  readonly keyKind: 'string' | 'int32';
  readonly value: T;
}
/** Any field type. */
export type FieldType = ScalarType | EnumType | MessageType | ListType | MapType;

/** How a field is present on the wire. */
export type Presence =
  /**
   * a plain field: the server writes it (defaults included), other encoders may leave it out at
   * its default; absent input reads as the default, and its name goes to the message's `$absent`
   */
  | 'always'
  /** genuinely absent when unset (optional fields, one-of members); decodes to undefined */
  | 'optional';

/** One field of a message. */
export interface FieldSpec<T extends FieldType = FieldType, P extends Presence = Presence> {
  readonly type: T;
  readonly presence: P;
  /** name of the one-of group this field belongs to, if any (then presence is 'optional') */
  readonly oneof?: string;
  /** a short description for help texts and docs */
  readonly doc?: string;
}

/** A message: an ordered record of fields keyed by lowerCamelCase wire name. */
export interface MessageSchema<F extends Record<string, FieldSpec> = Record<string, FieldSpec>> {
  readonly name: string;
  readonly fields: F;
}

/** Unknown fields kept from the wire for forward compatibility. */
export type UnknownFields = Record<string, JsonValue>;

/**
 * The names (schema order) of a message's plain ('always') fields that were absent on the wire
 * and read as their defaults. Undefined when every one was present, the server's own style:
 * evaluation sees the defaults, encoding leaves these fields out again.
 */
export type AbsentFields = readonly string[];

type DecodedType<T> =
  T extends ScalarType<'string'>
    ? string
    : T extends ScalarType<'bool'>
      ? boolean
      : T extends ScalarType<'int32' | 'uint32'>
        ? number
        : T extends ScalarType<'int64' | 'uint64' | 'duration' | 'timestamp'>
          ? bigint
          : T extends EnumType<infer E>
            ? EnumName<E>
            : T extends MessageType<infer M>
              ? Infer<M>
              : T extends ListType<infer E>
                ? DecodedType<E>[]
                : T extends MapType<infer V>
                  ? Record<string, DecodedType<V>>
                  : never;

type AlwaysKeys<F> = { [K in keyof F]: F[K] extends FieldSpec<FieldType, 'always'> ? K : never }[keyof F];
type OptionalKeys<F> = { [K in keyof F]: F[K] extends FieldSpec<FieldType, 'always'> ? never : K }[keyof F];

/** The decoded TypeScript type of a message schema. */
export type Infer<M> =
  M extends MessageSchema<infer F>
    ? { [K in AlwaysKeys<F>]: DecodedType<F[K]['type']> } & {
        [K in OptionalKeys<F>]?: DecodedType<F[K]['type']>;
      } & { $unknown?: UnknownFields; $absent?: AbsentFields }
    : never;

/** The decoded TypeScript type of a field type. */
export type Decoded<T extends FieldType> = DecodedType<T>;

/** Declares a message schema. */
export function message<const F extends Record<string, FieldSpec>>(name: string, fields: F): MessageSchema<F> {
  return { name, fields };
}

const scalar =
  <K extends ScalarKind>(kind: K) =>
  (doc?: string): FieldSpec<ScalarType<K>, 'always'> => ({ type: { kind }, presence: 'always', doc });

/** Field builders, one per type. */
export const f = {
  string: scalar('string'),
  /** a string field whose values are always one of `values` */
  stringOf: (values: readonly string[], doc?: string): FieldSpec<ScalarType<'string'>, 'always'> => ({
    type: { kind: 'string', values },
    presence: 'always',
    doc,
  }),
  bool: scalar('bool'),
  int32: scalar('int32'),
  uint32: scalar('uint32'),
  int64: scalar('int64'),
  uint64: scalar('uint64'),
  duration: scalar('duration'),
  timestamp: scalar('timestamp'),
  enum: <E extends EnumTable>(table: E, doc?: string): FieldSpec<EnumType<E>, 'always'> => ({
    type: { kind: 'enum', table },
    presence: 'always',
    doc,
  }),
  message: <M extends MessageSchema>(m: M, doc?: string): FieldSpec<MessageType<M>, 'always'> => ({
    type: { kind: 'message', message: m },
    presence: 'always',
    doc,
  }),
  list: <T extends FieldType>(element: FieldSpec<T>, doc?: string): FieldSpec<ListType<T>, 'always'> => ({
    type: { kind: 'list', element: element.type },
    presence: 'always',
    doc,
  }),
  map: <T extends FieldType>(
    keyKind: 'string' | 'int32',
    value: FieldSpec<T>,
    doc?: string,
  ): FieldSpec<MapType<T>, 'always'> => ({
    type: { kind: 'map', keyKind, value: value.type },
    presence: 'always',
    doc,
  }),
};

/** Marks a field as genuinely absent when unset. */
export function optional<T extends FieldType>(spec: FieldSpec<T>): FieldSpec<T, 'optional'> {
  return { ...spec, presence: 'optional' };
}

/** Marks a field as a member of a one-of group (absent unless it is the chosen alternative). */
export function oneof<T extends FieldType>(group: string, spec: FieldSpec<T>): FieldSpec<T, 'optional'> {
  return { ...spec, presence: 'optional', oneof: group };
}

/** lowerCamelCase wire name to the snake_case name used by filters and order_by. */
export function camelToSnake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** snake_case name to lowerCamelCase. */
export function snakeToCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
