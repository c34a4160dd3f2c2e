/** Where the committed drizzle migrations are (SQLite's in `drizzle/`, PostgreSQL's in `drizzle/pg/`). */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedFolder: string | undefined;

/** The committed migrations folder, found from the package root (works from source and from dist/). */
export function migrationsFolder(): string {
  if (cachedFolder !== undefined) return cachedFolder;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'drizzle', 'meta', '_journal.json'))) {
      cachedFolder = join(dir, 'drizzle');
      return cachedFolder;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('flightrec: cannot find the drizzle/ migrations folder above the installed code');
    dir = up;
  }
}
