// The CommonJS bundle's text as dist/cli.cjs holds it: inside Node's module wrapper, the one
// `Module.wrap` puts around a CommonJS module, so that src/cli/code-cache.ts compiles the file's
// text as read (V8 would first copy a concatenation of 1.8 MB into one string: about 440 fresh
// pages, 5 ms of a start on a VM).
import { Module } from 'node:module';

/** `source` wrapped as Module.wrap does, ending in a newline. */
export function wrappedBundle(source) {
  return `${Module.wrap(source)}\n`;
}
