/**
 * YAML renderings: the same documents as the JSON output (API field names, int64 as strings),
 * for reading. Control and bidi characters in strings are replaced by visible escapes, as on a
 * terminal; use `-o json` for the exact bytes.
 */
import { createRequire } from 'node:module';
import { JsonNumber, type JsonValue } from '../../api/codec/lossless-json.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';

function sanitizeTree(v: JsonValue): JsonValue {
  if (typeof v === 'string') return sanitizeForTerminal(v);
  if (Array.isArray(v)) return v.map(sanitizeTree);
  if (v instanceof JsonNumber) return v.text; // the literal as sent (-o json writes it as a number)
  if (v !== null && typeof v === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, x] of Object.entries(v)) out[sanitizeForTerminal(k)] = sanitizeTree(x);
    return out;
  }
  return v;
}

/** The yaml package, loaded on first use: the commands that import this module and write JSON or a table never pay for it. */
let yaml: typeof import('yaml') | undefined;

/** Renders a JSON document as YAML. */
export function renderYaml(doc: JsonValue): string {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.stringify(sanitizeTree(doc), { lineWidth: 0 });
}
