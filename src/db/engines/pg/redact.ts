/**
 * Removing PostgreSQL passwords from text that came from elsewhere (a driver error, a stack
 * trace): every `scheme://user:password@` loses its password, and a known password is replaced
 * wherever it appears, as given and percent-encoded.
 */
import type { DbTarget } from './target-types.ts';

/** What a removed password becomes (a fixed word: no hint of the length). */
export const REDACTED = '[redacted]';

// greedy up to the last @ of the word: a password holding an unencoded @ goes whole
const URL_WITH_PASSWORD = /\b(postgres(?:ql)?:\/\/[^\s:@/?#]*):\S*@/gi;

/** `message` without the target's password nor any URL's password. */
export function redactSecrets(message: string, target: DbTarget | undefined): string {
  let out = message.replace(URL_WITH_PASSWORD, '$1@');
  if (target?.kind === 'postgres' && target.password !== undefined) out = removeAll(out, target.password.reveal());
  return out;
}

/**
 * `message` without the passwords of the raw `--db`-like texts (URLs as typed, possibly
 * malformed: the password is what lies between the first `:` after `//` and the last `@`), nor
 * any URL's password.
 */
export function redactDbTexts(message: string, texts: readonly string[]): string {
  let out = message;
  for (const text of texts) {
    const password = rawPassword(text);
    if (password !== undefined) out = removeAll(out, password);
  }
  return redactSecrets(out, undefined);
}

function rawPassword(text: string): string | undefined {
  const start = text.indexOf('//');
  const at = text.lastIndexOf('@');
  if (start < 0 || at < start) return undefined;
  const colon = text.indexOf(':', start);
  if (colon < 0 || colon > at) return undefined;
  const password = text.slice(colon + 1, at);
  return password === '' ? undefined : password;
}

function removeAll(text: string, password: string): string {
  if (password === '') return text;
  let out = text;
  for (const form of variants(password)) out = out.split(form).join(REDACTED);
  return out;
}

function variants(password: string): string[] {
  const forms = new Set([password, encodeURIComponent(password)]);
  try {
    forms.add(decodeURIComponent(password));
  } catch {
    // not percent-encoded
  }
  // longest first, so that a form containing another is removed whole
  return [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
}
