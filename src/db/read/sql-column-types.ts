/**
 * The SQL columns the store offers a pre-filter, declared by the store itself (src/db does not
 * import the filter engine): the same shape as the filter engine's `SqlColumn`, so the report
 * layer passes `reader.sqlColumns(resource)` to `toSqlPrefilter` and the compiler checks the fit.
 */

/** A column (or SQL expression) of the store holding one field path. */
export interface SqlColumn {
  /** a SQL expression chosen by the store, e.g. "c.client_id"; never built from user input */
  readonly sql: string;
  /** how the value is held: INTEGER, 0/1, TEXT, full enum name as TEXT, enum number as INTEGER */
  readonly type: 'text' | 'integer' | 'bool' | 'enum_name' | 'enum_number';
  /** the value a NULL stands for; the field's default when omitted */
  readonly nullAs?: string | number | bigint;
  /**
   * rows whose value SQL cannot compare: `null` (a NULL is a value the column cannot hold, kept
   * elsewhere, not a default), `blob` (a BLOB is a string SQL cannot compare as text)
   */
  readonly unknown?: 'null' | 'blob';
}

/** Columns by snake_case field path (`authentication_info.user_principal`). */
export type SqlColumnMap = Readonly<Record<string, SqlColumn>>;
