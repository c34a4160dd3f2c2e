#!/usr/bin/env node
// Entry point of the flightrec command: runs the command line built by `npm run build`.
// CommonJS (bin/package.json), the quicker kind of module for Node to start from (4 ms of CPU
// less than an ES module, measured side by side): `flightrec --version` alone is answered here
// from a one-line CommonJS module, without loading the command line (commander and every
// command's registration); it is the command users time. Everything else starts through
// dist/start.cjs (src/cli/start.ts): the CommonJS bundle dist/cli.cjs with its V8 code cache,
// or the ES module build dist/cli.js for the terminal browser.
'use strict';
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${require('../dist/version.cjs').VERSION}\n`);
} else {
  const dist = require('node:path').join(__dirname, '..', 'dist');
  require('../dist/start.cjs').start(argv, dist);
}
