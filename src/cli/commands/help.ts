/**
 * The "Global options" block of a command's `--help`: the program-wide options that apply to
 * that command, with the output formats it supports (from the same list it validates `-o` with).
 */

/** Which global options a command reads, and how. */
export interface GlobalsUsed {
  /** `--db` (and `--db-password-file`): what the command does with the database */
  readonly db?: string;
  /** `--cluster`: what it selects */
  readonly cluster?: string;
  /** `--config`: what it reads from the file */
  readonly config?: string;
  /** `-o`: the formats, the first being the default */
  readonly output?: readonly string[];
  /** `--no-color` applies */
  readonly color?: boolean;
}

const row = (flag: string, text: string): string => `  ${flag.padEnd(23)}${text}`;

/** The help text listing the global options a command uses (after its own options). */
export function globalOptionsHelp(used: GlobalsUsed): string {
  const lines: string[] = [];
  if (used.db !== undefined) {
    lines.push(row('--db <file-or-url>', `${used.db} (env FLIGHTREC_DB; default ./flightrec.db)`));
    lines.push(row('', 'an SQLite file or postgres://USER@HOST:PORT/DATABASE?sslmode=MODE, whose password'));
    lines.push(row('', 'comes from the URL, --db-password-file FILE (env FLIGHTREC_DB_PASSWORD_FILE) or PGPASSWORD'));
  }
  if (used.cluster !== undefined) lines.push(row('--cluster <name>', used.cluster));
  if (used.config !== undefined) lines.push(row('--config <file>', `${used.config} (env FLIGHTREC_CONFIG)`));
  if (used.output !== undefined && used.output.length > 0) {
    const [first, ...rest] = used.output;
    lines.push(row('-o, --output <format>', `${first} (default)${rest.length > 0 ? `, ${rest.join(', ')}` : ''}`));
  }
  if (used.color === true) lines.push(row('--no-color', 'never write colour escape sequences (also NO_COLOR)'));
  if (lines.length === 0) return '\nGlobal options: none apply to this command.\n';
  return `\nGlobal options (before or after the command name):\n${lines.join('\n')}\n`;
}

/** `--cluster` for the reading commands. */
export const READ_CLUSTER = 'which recorded cluster (default: the only one in the database)';
/** `--db` for the reading commands. */
export const READ_DB = 'the history database to read';
/** `--cluster` for the commands that also answer over several clusters (a glob). */
export const READ_CLUSTER_GLOB =
  "which recorded cluster (default: the only one); a glob ('*', 'prod-*', 'dc[12]') answers for every match, with a cluster column";
