/**
 * Hostile strings a cluster might send back (in client ids, principals, software names, task
 * reasons, catalog errors, error messages), the scenario and proxy rules that plant them, and
 * the check that an output shows them harmlessly.
 */
import type { ProxyRule } from './fault-proxy.ts';
import { connectError, hostileFields, invalidUtf8 } from './mutations.ts';

/** Terminal escapes, control bytes, bidi overrides, HTML and spreadsheet formulas. */
export const HOSTILE: readonly string[] = [
  'cls\u001b[2J\u001b[H\u001b[31mRED',
  'title\u001b]0;pwned\u0007',
  'link\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\',
  'bs\bcr\rnul\u0000del\u007fcsi\u009b31m',
  'user\u202eexe.txt\u202c',
  'iso\u2066lated\u2069 rlm\u200f',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '=HYPERLINK("https://evil.example","x")',
  'two\nlines\tand a tab',
];

/** Raw characters that must never reach a terminal or a page from cluster text (tab and newline are plain whitespace). */
// eslint-disable-next-line no-control-regex -- finds the control characters a terminal must never see
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/g;

/** The unsafe characters in an output, with a little context each (empty when it is harmless). */
export function unsafeIn(text: string, opts: { allowSgr?: boolean } = {}): string[] {
  // eslint-disable-next-line no-control-regex -- strips SGR escape sequences
  const scanned = opts.allowSgr === true ? text.replace(/\u001b\[[0-9;]*m/g, '') : text;
  const out: string[] = [];
  for (const m of scanned.matchAll(UNSAFE)) {
    const at = m.index ?? 0;
    out.push(
      `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} in ${JSON.stringify(scanned.slice(Math.max(0, at - 20), at + 20))}`,
    );
    if (out.length > 5) break;
  }
  return out;
}

/** Active markup in an HTML report (the report itself has none): script, image or frame tags, event handlers, javascript: URLs. */
export function activeMarkup(html: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(/<(script|img|iframe|object|embed)\b[^>]*>?/gi)) found.push(m[0]);
  for (const m of html.matchAll(/<[a-z][^>]*\s(on[a-z]+\s*=|href\s*=\s*["']?javascript:)[^>]*>/gi)) found.push(m[0]);
  return found;
}

/** A string as a YAML double-quoted scalar: everything outside printable ASCII escaped. */
function yamlQuoted(s: string): string {
  return `"${[...s]
    .map((c) => {
      const code = c.codePointAt(0)!;
      if (c === '"' || c === '\\') return `\\${c}`;
      if (code >= 0x20 && code < 0x7f) return c;
      return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\U${code.toString(16).padStart(8, '0')}`;
    })
    .join('')}"`;
}

/** A scenario whose task reasons and catalog error carry hostile strings. */
export function hostileScenario(): string {
  return [
    'name: hostile',
    'description: hostile strings in reasons and errors',
    'events:',
    `  - { at: 60s, kind: task_faulted, reason: ${yamlQuoted(HOSTILE[0]!)}, duration: 90s }`,
    `  - { at: 60s, kind: iceberg_catalog_unreachable, error_message: ${yamlQuoted(HOSTILE[6]!)}, duration: 90s }`,
    `  - { at: 90s, kind: link_unavailable, reason: ${yamlQuoted(HOSTILE[4]!)}, duration: 60s }`,
    '',
  ].join('\n');
}

/** Proxy rules: hostile connection fields throughout, a hostile error message, bytes that are not UTF-8. */
export function hostileRules(): ProxyRule[] {
  return [
    {
      name: 'invalid UTF-8',
      from: 180,
      until: 200,
      ops: ['ListKafkaConnections'],
      mutate: invalidUtf8('clientSoftwareName'),
    },
    {
      name: 'hostile error message',
      from: 120,
      until: 140,
      ops: ['GetUpgradeStatus'],
      mutate: connectError('unavailable', 503, `${HOSTILE[1]} ${HOSTILE[7]} ${HOSTILE[3]}`),
    },
    {
      name: 'hostile connection fields',
      from: 0,
      until: 1e9,
      ops: ['ListKafkaConnections'],
      mutate: hostileFields(
        ['clientId', 'userPrincipal', 'clientSoftwareName', 'clientSoftwareVersion', 'groupId', 'transactionalId'],
        HOSTILE,
      ),
    },
  ];
}
