/** Secrets (passwords, tokens) that never show up in logs, errors or serialisations. */
import { readFileSync, statSync } from 'node:fs';
import { inspect } from 'node:util';
import { ClientConfigError } from './call-error.ts';

const REDACTED = '[redacted]';

/** A secret string: every way of printing it gives `[redacted]`; only `reveal()` returns it. */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    if (typeof value !== 'string') throw new TypeError('Secret: value must be a string');
    this.#value = value;
  }

  /** The secret itself; call it only where the value goes onto the wire. */
  reveal(): string {
    return this.#value;
  }

  /** True when the secret is the empty string. */
  get isEmpty(): boolean {
    return this.#value.length === 0;
  }

  /** Always `[redacted]`. */
  toString(): string {
    return REDACTED;
  }

  /** Always `[redacted]`, so `JSON.stringify` never writes the value. */
  toJSON(): string {
    return REDACTED;
  }

  /** Always `[redacted]`, for template literals and string concatenation. */
  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  /** Always `[redacted]`, for `util.inspect`, `console.log` and vitest's printer. */
  [inspect.custom](): string {
    return REDACTED;
  }
}

/** Where a secret comes from: exactly one of an environment variable name or a file path. */
export interface SecretSource {
  /** name of the environment variable that holds the secret */
  readonly env?: string;
  /** path of a file whose content (trailing newlines trimmed) is the secret */
  readonly file?: string;
}

/** A loaded secret plus warnings for the user (e.g. a file readable by others); never throws for those. */
export interface LoadedSecret {
  readonly secret: Secret;
  readonly warnings: string[];
}

/**
 * Loads a secret from an environment variable or a file. Errors name the variable or the file,
 * never the value; an unset or empty variable, a missing/unreadable/empty file are errors.
 * A file readable by group or others is accepted with a warning (returned, not logged: the
 * caller decides where warnings go).
 */
export function loadSecret(source: SecretSource, env: Readonly<Record<string, string | undefined>>): LoadedSecret {
  const hasEnv = source.env !== undefined;
  const hasFile = source.file !== undefined;
  if (hasEnv === hasFile) {
    throw new ClientConfigError('a secret needs exactly one source: an environment variable or a file');
  }
  if (hasEnv) return { secret: fromEnv(source.env!, env), warnings: [] };
  return fromFile(source.file!);
}

function fromEnv(name: string, env: Readonly<Record<string, string | undefined>>): Secret {
  if (name === '') throw new ClientConfigError('secret environment variable name is empty');
  const value = Object.hasOwn(env, name) ? env[name] : undefined;
  if (value === undefined) throw new ClientConfigError(`environment variable ${name} is not set`);
  if (value === '') throw new ClientConfigError(`environment variable ${name} is empty`);
  return new Secret(value);
}

function fromFile(path: string): LoadedSecret {
  if (path === '') throw new ClientConfigError('secret file path is empty');
  let text: string;
  let mode: number;
  try {
    mode = statSync(path).mode;
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ClientConfigError(`cannot read secret file ${path}: ${describeFsError(err)}`);
  }
  const value = text.replace(/[\r\n]+$/, '');
  if (value === '') throw new ClientConfigError(`secret file ${path} is empty`);
  const warnings: string[] = [];
  if (process.platform !== 'win32' && (mode & 0o044) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(4, '0');
    warnings.push(`secret file ${path} is readable by group or others (mode ${octal}); restrict it with chmod 600`);
  }
  return { secret: new Secret(value), warnings };
}

function describeFsError(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return typeof code === 'string' ? code : 'unknown error';
  }
}
