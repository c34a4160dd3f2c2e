/**
 * The slow fields of a connection, declared once: every attribute a version (`conn_version`)
 * holds besides its bookkeeping. The table's columns (schema.ts), the packed record (packed.ts),
 * the writer's matching and SQL (match.ts, ingest.ts), the reader's rows (parts.ts, rows.ts) and
 * the SQL pre-filter columns (sql-columns.ts) all iterate this list, so adding a slow field is
 * adding an entry here (and a test that it round-trips). Imported by the drizzle schema: drizzle
 * and types only.
 */
import { integer, text } from 'drizzle-orm/sqlite-core';

/**
 * How a slow field is held. `text` and `enum`: a string as a `str` id (`enum` compares as an enum
 * name in the pre-filter); `inline`: a string kept in its own column (nearly one value per
 * connection); `time`: nanoseconds, exact at any size; `map`: a map of int32 as the `str` id of
 * its JSON text; `optionalText`: an optional string, a `str` id or NULL (0 in the packed record)
 * when unset.
 */
export type SlowKind = 'text' | 'enum' | 'inline' | 'time' | 'map' | 'optionalText';

/** One slow field: its name in the store, column, kind, and where it sits in a connection row. */
export interface SlowField {
  /** the property of conn_version in the drizzle schema */
  readonly key: string;
  /** the SQL column */
  readonly column: string;
  readonly kind: SlowKind;
  /** the field in a connection row: a top-level field, or a field of a sub-message */
  readonly path: readonly [string] | readonly [string, string];
  /**
   * declared after recordings existed: its column is nullable (NULL in older versions, read as
   * the default), and the packed record carries it after the record's flags (older records end
   * before it). Fields without it keep the record's original layout. Only for kinds held as a
   * `str` id (text, enum, map, optionalText).
   */
  readonly late?: true;
}

/** The slow fields, in the order of the packed record (the original layout first, then `late` fields). */
export const SLOW_FIELDS = [
  { key: 'clientId', column: 'client_id', kind: 'text', path: ['clientId'] },
  { key: 'softwareName', column: 'software_name', kind: 'text', path: ['clientSoftwareName'] },
  { key: 'softwareVersion', column: 'software_version', kind: 'text', path: ['clientSoftwareVersion'] },
  { key: 'mechanism', column: 'mechanism', kind: 'enum', path: ['authenticationInfo', 'mechanism'] },
  { key: 'authState', column: 'auth_state', kind: 'enum', path: ['authenticationInfo', 'state'] },
  { key: 'principal', column: 'principal', kind: 'text', path: ['authenticationInfo', 'userPrincipal'] },
  { key: 'state', column: 'state', kind: 'enum', path: ['state'] },
  { key: 'closeTime', column: 'close_time', kind: 'time', path: ['closeTime'] },
  { key: 'groupId', column: 'group_id', kind: 'text', path: ['groupId'] },
  { key: 'groupInstanceId', column: 'group_instance_id', kind: 'text', path: ['groupInstanceId'] },
  { key: 'groupMemberId', column: 'group_member_id', kind: 'inline', path: ['groupMemberId'] },
  { key: 'transactionalId', column: 'transactional_id', kind: 'text', path: ['transactionalId'] },
  { key: 'apiVersions', column: 'api_versions', kind: 'map', path: ['apiVersions'] },
] as const satisfies readonly SlowField[];

/** The declared slow fields' type. */
export type SlowFields = typeof SLOW_FIELDS;

/** The value of a slow field of this kind in a row. */
export type SlowValue<K extends SlowKind> = K extends 'time'
  ? bigint
  : K extends 'map'
    ? Readonly<Record<string, number>>
    : K extends 'optionalText'
      ? string | undefined
      : string;

/** A slow value of any kind. */
export type AnySlowValue = SlowValue<SlowKind>;

/** A version's slow values, in SLOW_FIELDS order. */
export type SlowValues = readonly AnySlowValue[];

const ns = (name: string) => integer(name).$type<bigint>();
const strId = (name: string) => integer(name).notNull();
const inlineText = (name: string) => text(name).notNull();
const nullableId = (name: string) => integer(name);

type ColumnOf<F extends SlowField> = F extends { readonly late: true }
  ? ReturnType<typeof nullableId>
  : F['kind'] extends 'time'
    ? ReturnType<typeof ns>
    : F['kind'] extends 'inline'
      ? ReturnType<typeof inlineText>
      : F['kind'] extends 'optionalText'
        ? ReturnType<typeof nullableId>
        : ReturnType<typeof strId>;

/** The conn_version columns of the slow fields, by key (spread into the drizzle table). */
export type SlowColumns = { [F in SlowFields[number] as F['key']]: ColumnOf<F> };

type AnyColumn =
  ReturnType<typeof nullableId> | ReturnType<typeof ns> | ReturnType<typeof inlineText> | ReturnType<typeof strId>;

function columnOf(f: SlowField): AnyColumn {
  if (f.late === true || f.kind === 'optionalText') return nullableId(f.column);
  if (f.kind === 'time') return ns(f.column);
  if (f.kind === 'inline') return inlineText(f.column);
  return strId(f.column);
}

/** The drizzle columns of the slow fields (conn_version in schema.ts). */
export function slowColumns(): SlowColumns {
  const out: Record<string, AnyColumn> = {};
  for (const f of SLOW_FIELDS as readonly SlowField[]) out[f.key] = columnOf(f);
  return out as SlowColumns;
}
