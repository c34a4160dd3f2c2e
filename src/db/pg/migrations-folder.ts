/** Where the committed PostgreSQL migrations are: `drizzle/pg` of the package. */
import { join } from 'node:path';
import { migrationsFolder } from '../migrations-folder.ts';

/** The committed PostgreSQL migrations folder (works from source and from dist/). */
export function pgMigrationsFolder(): string {
  return join(migrationsFolder(), 'pg');
}
