// `bindings` for the copy of better-sqlite3's JavaScript bundled into dist/cli.cjs
// (scripts/bundle-options.mjs): the addon looked up in the installed better-sqlite3 package (its
// module_root) instead of next to the caller's file, which is now dist/cli.cjs. The first three
// places the real `bindings` package tries (node-gyp's build/, build/Debug/, build/Release/, in
// that order) are looked up with a file test: `bindings` requires each in turn, and every one
// that is missing costs a failed require and an error with its stack (about 5 ms of a read's
// start). Anywhere else, `bindings` itself searches, with its own error when nothing is found.
// The addon itself, build/Release/better_sqlite3.node, is never bundled.
'use strict';
const { existsSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');

/** bindings' first places for an addon, relative to its package (node_modules/bindings/bindings.js). */
const FIRST_PLACES = [['build'], ['build', 'Debug'], ['build', 'Release']];

module.exports = function bindings(name) {
  const pkg = require.resolve('better-sqlite3/package.json');
  const root = dirname(pkg);
  const load = createRequire(pkg);
  for (const place of FIRST_PLACES) {
    const file = join(root, ...place, name);
    if (existsSync(file)) return load(file);
  }
  return load('bindings')({ bindings: name, module_root: root });
};
