/** The flightrec version: written from package.json by `npm version` (scripts/sync-version.mjs); a test checks they agree. */
export const VERSION = '0.1.0';
