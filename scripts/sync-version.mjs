// `npm version` hook: writes package.json's new version into src/cli/version.ts, which the
// bundle carries (so `flightrec --version` reads no file at run time). test/cli.test.ts checks
// that the two agree.
import { readFileSync, writeFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const file = new URL('../src/cli/version.ts', import.meta.url);
const text = readFileSync(file, 'utf8');
const next = text.replace(/export const VERSION = '[^']*';/, `export const VERSION = '${version}';`);
if (!next.includes(`'${version}'`)) throw new Error(`sync-version: no VERSION constant to update in ${file.pathname}`);
writeFileSync(file, next);
