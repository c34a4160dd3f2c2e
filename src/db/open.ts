/** Opening the history database: the engine that `--db` names opens it (src/db/engines.ts). */
export { openDatabase } from './engines.ts';
export { migrationsFolder } from './migrations-folder.ts';
export type { FlightrecDb, OpenOptions } from './store-engine.ts';
