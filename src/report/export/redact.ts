/**
 * Consistent redaction of exported JSON trees: IP addresses, principals, client ids,
 * transactional ids and group ids become stable tokens (`ip-1`, `principal-3`): the same value
 * always maps to the same token within an export (whatever field it is in), and different
 * values to different tokens, so counting, grouping and joining still work.
 * Values are found by field name; they are then also replaced wherever they occur inside other
 * strings (messages, filters, reasons, unknown fields), and IP addresses are found by pattern.
 */
import { JsonNumber, type JsonValue } from '../../api/codec/lossless-json.ts';

/** Characters JSON.stringify leaves raw that a terminal would obey: DEL, C1 controls, bidi controls, line separators. */
const TERMINAL_UNSAFE_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text with DEL, C1 controls (U+009B is a CSI), bidi overrides and isolates (U+202E,
 * U+2066...) and line separators written as `\u` escapes: the same JSON value, safe on a
 * terminal. They can only occur inside strings, where the escape means the same character.
 */
export function escapeUnsafeJson(json: string): string {
  return json.replace(TERMINAL_UNSAFE_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The kinds of values replaced, each with its own token counter. */
export const REDACTED_KINDS = [
  'ip',
  'principal',
  'client',
  'txn',
  'group',
  'group-instance',
  'group-member',
  'unknown',
  'secret',
] as const;
/** One kind of redacted value. */
export type RedactedKind = (typeof REDACTED_KINDS)[number];

/** One line of the mapping file: which token stands for which value. */
export interface MappingEntry {
  readonly kind: RedactedKind;
  readonly token: string;
  readonly value: string;
}

/** Field names (camelCase as the API writes them, and snake_case) whose string values are replaced whole. */
const FIELD_KINDS: Readonly<Record<string, RedactedKind>> = {
  ipAddress: 'ip',
  ip_address: 'ip',
  sourceIp: 'ip',
  source_ip: 'ip',
  userPrincipal: 'principal',
  user_principal: 'principal',
  principal: 'principal',
  username: 'principal',
  clientId: 'client',
  client_id: 'client',
  transactionalId: 'txn',
  transactional_id: 'txn',
  groupId: 'group',
  group_id: 'group',
  groupInstanceId: 'group-instance',
  group_instance_id: 'group-instance',
  groupMemberId: 'group-member',
  group_member_id: 'group-member',
  authorization: 'secret',
  Authorization: 'secret',
  password: 'secret',
  passwd: 'secret',
  secret: 'secret',
  token: 'secret',
  accessToken: 'secret',
  access_token: 'secret',
  apiKey: 'secret',
  api_key: 'secret',
  credentials: 'secret',
};

/** What the mapping file says for a credential: its value is never written anywhere. */
export const SECRET_NOT_KEPT = '(a credential: not kept)';

/** HTTP credentials inside text: `Basic dXNlcjpw...`, `Bearer eyJ...`. */
const CREDENTIAL_PATTERN = /\b(Basic|Bearer|Token)\s+[A-Za-z0-9+/=._~-]{6,}/gi;

/**
 * Structured identifiers that are not personal data (resource names, enum-like fields): left
 * exactly as they are, even when a redacted value happens to be spelled the same way.
 */
const IDENTIFIER_KEYS: ReadonlySet<string> = new Set([
  'uid',
  'target',
  'cluster',
  'operation',
  'outcome',
  'coverage',
  'shadowLinkName',
  'topic',
  'topicName',
  'sourceTopicName',
  'sourceTopicId',
  'topicId',
  'releaseVersion',
  'listenerName',
  'state',
  'kind',
  'format',
]);

/** Values shorter than this are replaced in their own fields only, not inside other text. */
export const MIN_TEXT_MATCH = 4;

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = `(?<![0-9.])(?:${OCTET}\\.){3}${OCTET}(?![0-9]|\\.[0-9])`;
const H = '[0-9A-Fa-f]{1,4}';
const IPV6 = `(?<![\\w:.])(?:(?:${H}:){7}${H}|(?:${H}(?::${H})*)?::(?:${H}(?::${H})*)?)(?![\\w:])`;
const IP_PATTERN = new RegExp(`${IPV6}|${IPV4}`, 'g');

/** True when a string is an IPv4 or IPv6 address (or contains one). */
export function containsIp(text: string): boolean {
  IP_PATTERN.lastIndex = 0;
  const hit = IP_PATTERN.test(text);
  IP_PATTERN.lastIndex = 0;
  return hit;
}

/** Replaces sensitive values with stable tokens; learn first (all of the export), then redact. */
export class Redactor {
  readonly #tokens = new Map<string, string>();
  readonly #entries: MappingEntry[] = [];
  readonly #counters = new Map<RedactedKind, number>();
  /** value → token for replacement inside text, indexed by the first three characters */
  readonly #byPrefix = new Map<string, string[]>();
  readonly #textToken = new Map<string, string>();

  /**
   * The token of a value, assigned on first sight and named after the kind it was first seen as:
   * a value that is both a client id and a group instance id keeps one token, so joins still work.
   */
  token(kind: RedactedKind, value: string): string {
    let token = this.#tokens.get(value);
    if (token === undefined) {
      const n = (this.#counters.get(kind) ?? 0) + 1;
      this.#counters.set(kind, n);
      token = `${kind}-${n}`;
      this.#tokens.set(value, token);
      this.#entries.push({ kind, token, value: kind === 'secret' ? SECRET_NOT_KEPT : value });
      // addresses inside text are found by pattern (a prefix match would cut 10.0.0.12 at 10.0.0.1)
      if (kind !== 'ip' && kind !== 'unknown' && value.length >= MIN_TEXT_MATCH && !this.#textToken.has(value)) {
        this.#textToken.set(value, token);
        const prefix = value.slice(0, 3);
        const list = this.#byPrefix.get(prefix) ?? [];
        list.push(value);
        list.sort((a, b) => b.length - a.length);
        this.#byPrefix.set(prefix, list);
      }
    }
    return token;
  }

  /** Registers every sensitive value of a tree (by field name), so that text elsewhere is redacted too. */
  learn(tree: JsonValue | undefined): void {
    walk(tree, undefined, (kind, value) => {
      if (value !== '') this.token(kind, value);
    });
  }

  /** A copy of the tree with sensitive fields tokenised and known values and IPs replaced inside other strings. */
  redact(tree: JsonValue): JsonValue {
    return this.#redact(tree, undefined);
  }

  /** Free text with every known value and every IP address replaced by its token. */
  text(text: string): string {
    let out = '';
    let from = 0;
    if (this.#byPrefix.size > 0 && text.length >= MIN_TEXT_MATCH) {
      for (let i = 0; i + MIN_TEXT_MATCH <= text.length;) {
        const list = this.#byPrefix.get(text.slice(i, i + 3));
        const hit = list?.find((v) => text.startsWith(v, i));
        if (hit === undefined) {
          i++;
          continue;
        }
        out += text.slice(from, i) + (this.#textToken.get(hit) as string);
        i += hit.length;
        from = i;
      }
    }
    out += text.slice(from);
    return out
      .replace(CREDENTIAL_PATTERN, (m, scheme: string) => `${scheme} ${this.token('secret', m)}`)
      .replace(IP_PATTERN, (ip) => this.token('ip', ip));
  }

  /**
   * A copy of a decoded answer whose unknown fields (`$unknown`, at any level) have every
   * string replaced by a token: flightrec cannot tell what a field it does not know holds, so a
   * redacted export keeps its shape and not its text. Known fields are left to `redact`.
   */
  redactUnknown<T>(decoded: T): T {
    return this.#unknownIn(decoded, 0) as T;
  }

  #unknownIn(v: unknown, depth: number): unknown {
    if (v === null || typeof v !== 'object' || depth > 64 || v instanceof Uint8Array) return v;
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      v.forEach((e, i) => {
        const r = this.#unknownIn(e, depth + 1);
        if (r !== e) (out ??= v.slice())[i] = r;
      });
      return out ?? v;
    }
    let out: Record<string, unknown> | undefined;
    for (const [k, e] of Object.entries(v)) {
      const r = k === '$unknown' ? this.#opaque(e as JsonValue) : this.#unknownIn(e, depth + 1);
      if (r !== e) (out ??= { ...(v as Record<string, unknown>) })[k] = r;
    }
    return out ?? v;
  }

  /** Every string of a value flightrec does not know, tokenised (walked without recursion). */
  #opaque(value: JsonValue): JsonValue {
    const root: { v: JsonValue } = { v: value };
    const stack: { holder: { [k: string]: JsonValue } | JsonValue[]; key: string | number }[] = [
      { holder: root, key: 'v' },
    ];
    while (stack.length > 0) {
      const { holder, key } = stack.pop()!;
      const x = (holder as Record<string | number, JsonValue>)[key] as JsonValue;
      if (typeof x === 'string') {
        if (x !== '')
          (holder as Record<string | number, JsonValue>)[key] = this.token(
            FIELD_KINDS[String(key)] === 'secret' ? 'secret' : 'unknown',
            x,
          );
      } else if (Array.isArray(x)) {
        const copy = x.slice();
        (holder as Record<string | number, JsonValue>)[key] = copy;
        for (let i = 0; i < copy.length; i++) stack.push({ holder: copy, key: i });
      } else if (x !== null && typeof x === 'object') {
        const copy = { ...x };
        (holder as Record<string | number, JsonValue>)[key] = copy;
        for (const k of Object.keys(copy)) stack.push({ holder: copy, key: k });
      }
    }
    return root.v;
  }

  /** Every token handed out, in order of first sight. */
  entries(): readonly MappingEntry[] {
    return this.#entries;
  }

  #redact(v: JsonValue, key: string | undefined): JsonValue {
    if (typeof v === 'string') {
      if (v === '') return v;
      const kind = key === undefined ? undefined : FIELD_KINDS[key];
      if (kind !== undefined) return this.token(kind, v);
      if (key !== undefined && IDENTIFIER_KEYS.has(key)) return v;
      return this.text(v);
    }
    if (Array.isArray(v)) return v.map((e) => this.#redact(e, key));
    if (v !== null && typeof v === 'object' && !(v instanceof JsonNumber)) {
      const out: { [k: string]: JsonValue } = {};
      for (const [k, x] of Object.entries(v)) {
        const name = FIELD_KINDS[k] !== undefined || IDENTIFIER_KEYS.has(k) ? k : this.#key(k);
        out[name] = this.#redact(x, k);
      }
      return out;
    }
    return v;
  }

  /** An object key that is itself a sensitive value (a map keyed by client id, say) is tokenised. */
  #key(k: string): string {
    const token = this.#textToken.get(k);
    if (token !== undefined) return token;
    return k.replace(IP_PATTERN, (ip) => this.token('ip', ip));
  }
}

function walk(
  v: JsonValue | undefined,
  key: string | undefined,
  visit: (kind: RedactedKind, value: string) => void,
): void {
  if (v === undefined || v === null) return;
  if (typeof v === 'string') {
    const kind = key === undefined ? undefined : FIELD_KINDS[key];
    if (kind !== undefined) visit(kind, v);
    return;
  }
  if (Array.isArray(v)) {
    for (const e of v) walk(e, key, visit);
    return;
  }
  if (typeof v === 'object' && !(v instanceof JsonNumber)) for (const [k, x] of Object.entries(v)) walk(x, k, visit);
}
