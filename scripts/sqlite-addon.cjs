// `bindings` for the copy of better-sqlite3's JavaScript bundled into dist/cli.cjs
// (scripts/bundle-options.mjs): the real `bindings` package, asked to search the installed
// better-sqlite3 package (its module_root) instead of guessing it from the caller's file, which
// is now dist/cli.cjs. The addon itself, build/Release/better_sqlite3.node, is never bundled.
'use strict';
const { createRequire } = require('node:module');
const { dirname } = require('node:path');

module.exports = function bindings(name) {
  const pkg = require.resolve('better-sqlite3/package.json');
  return createRequire(pkg)('bindings')({ bindings: name, module_root: dirname(pkg) });
};
