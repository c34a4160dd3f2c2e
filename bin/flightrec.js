#!/usr/bin/env node
// Entry point of the flightrec command: runs the bundled CLI built by `npm run build`.
import { run } from '../dist/cli.js';

await run(process.argv.slice(2));
