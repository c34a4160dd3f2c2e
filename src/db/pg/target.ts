/** TEMPORARY (replaced by the pgsec branch): database targets. */
export type DbTarget =
  { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string } | { kind: 'pglite'; dir: string };

/** Parses --db. */
export function parseDbTarget(text: string, _opts: { passwordFile?: string } = {}): DbTarget {
  if (/^postgres(ql)?:\/\//.test(text)) return { kind: 'postgres', url: text };
  if (text.startsWith('pglite://')) return { kind: 'pglite', dir: text.slice('pglite://'.length) };
  return { kind: 'sqlite', path: text };
}
/** Printable. */
export function displayDbTarget(t: DbTarget): string {
  return t.kind === 'sqlite' ? t.path : t.kind === 'pglite' ? `pglite://${t.dir}` : t.url.replace(/:[^:@/]*@/, '@');
}
/** Redacts. */
export function redactSecrets(m: string, _t: DbTarget): string {
  return m;
}
/** Pool config. */
export function pgPoolConfig(t: Extract<DbTarget, { kind: 'postgres' }>): Record<string, unknown> {
  return { connectionString: t.url };
}
