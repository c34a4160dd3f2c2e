/** Opening the history database: the engine that `--db` names opens it (src/db/engines/registry.ts). */
export { openDatabase } from './registry.ts';
export { migrationsFolder } from '../schema/migrations-folder.ts';
export type { FlightrecDb, OpenOptions } from './store-engine.ts';
