/**
 * `flightrec export [--redact] [--since T] [--until T] [--out FILE]`: writes the polls of a
 * time range, each with its request and reconstructed answer (or failure), as one JSON bundle.
 * With `--redact`, IP addresses, principals, client ids, transactional ids and group ids become
 * stable tokens and the mapping goes to `FILE.mapping.json`. Both files are created mode 0600
 * and never overwrite an existing file.
 */
import { closeSync, existsSync, fchmodSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { isOperationName, OPERATION_NAMES } from '../../api/schema/operations.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { createHistoryReader } from '../../db/index.ts';
import { escapeUnsafeJson, mappingDocument, writeExportBundle, type ExportResult } from '../../report/export/index.ts';
import { CliError, EXIT, RuntimeError, UsageError, type CliIo } from '../context.ts';
import { VERSION } from '../version.ts';
import { globalOptionsHelp, READ_DB } from './help.ts';
import { openHistoryReadOnly } from './history.ts';
import { dbOpenTarget, typedDb } from '../db-target.ts';
import { timeOption } from './time-option.ts';
import { unknownNameMessage } from '../suggest.ts';

interface ExportOpts {
  redact?: boolean;
  since?: string;
  until?: string;
  source?: string;
  out: string;
}

interface GlobalOpts {
  db: string;
  dbPasswordFile?: string;
  cluster?: string;
}

/** Default bundle file, in the working directory. */
export const DEFAULT_EXPORT_FILE = 'flightrec-export.json';

/**
 * A file that did not exist before (mode 0600), written in buffered pieces under a temporary
 * name next to it and put in place (never over an existing file) only when complete: an export
 * killed half-way leaves a `.partial` file, never one that looks like a finished bundle.
 */
class PrivateFile {
  readonly path: string;
  readonly #temp: string;
  readonly #fd: number;
  #pending: string[] = [];
  #size = 0;
  #placed = false;

  constructor(path: string) {
    this.path = path;
    this.#temp = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
    if (existsSync(path)) throw new RuntimeError(`${path} already exists: remove it or choose another --out`);
    try {
      this.#fd = openSync(this.#temp, 'wx', 0o600);
    } catch (err) {
      // named by the user's path: the temporary name next to it is ours
      throw new RuntimeError(`cannot create ${path}: ${createFailure(err, dirname(path))}`);
    }
    fchmodSync(this.#fd, 0o600);
  }

  /** Buffers a piece; writes once a MiB is pending. */
  write(chunk: string): void {
    this.#pending.push(chunk);
    this.#size += chunk.length;
    if (this.#size >= 1 << 20) this.flush();
  }

  flush(): void {
    if (this.#pending.length === 0) return;
    const text = this.#pending.join('');
    this.#pending = [];
    this.#size = 0;
    const bytes = Buffer.from(text, 'utf8');
    for (let off = 0; off < bytes.length;) off += writeSync(this.#fd, bytes, off);
  }

  /** Writes what is pending, closes, and puts the file in place (a link: it fails rather than overwrite). */
  close(): void {
    try {
      this.flush();
    } finally {
      closeSync(this.#fd);
    }
    const exists = (): RuntimeError =>
      new RuntimeError(`${this.path} already exists: remove it or choose another --out`);
    try {
      linkSync(this.#temp, this.path);
      this.#placed = true;
      unlinkSync(this.#temp);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 'EEXIST') throw exists();
      // a file system without hard links: a rename, after checking once more that nothing is there
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
      if (existsSync(this.path)) throw exists();
      renameSync(this.#temp, this.path);
      this.#placed = true;
    }
  }

  /** Closes and removes what was written (after a failure: no half-written export is left behind). */
  discard(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // already closed
    }
    for (const path of this.#placed ? [this.#temp, this.path] : [this.#temp]) {
      try {
        unlinkSync(path);
      } catch {
        // already gone
      }
    }
  }
}

const WRITE_ERRORS: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'the file is too large for the file system',
  EIO: 'an I/O error',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
};

/** Why a file could not be created in `dir`, in words about that directory (never the temporary name). */
function createFailure(err: unknown, dir: string): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code === 'ENOENT') return `the directory ${dir} does not exist`;
  if (code === 'ENOTDIR') return `${dir} is not a directory`;
  if (code === 'EACCES' || code === 'EPERM') return `no permission to create a file in ${dir} (${code})`;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code))
    return `${WRITE_ERRORS[code] ?? 'the system refused'} (${code})`;
  return 'the system refused';
}

/** A failure to write the bundle as a message (the partial file is already removed), not a stack trace. */
function writeFailure(err: unknown, path: string): unknown {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code) || err instanceof CliError) return err;
  // the system's own message names the temporary file, not the user's
  const why = WRITE_ERRORS[code] ?? 'the system refused';
  return new RuntimeError(`cannot write ${path}: ${why} (${code}); the partial export was removed`);
}

/** Registers `export`. */
export function registerExport(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('export')
    .description('write the polls of a time range, with their answers, as one JSON bundle (optionally redacted)')
    .option(
      '--redact',
      'replace IP addresses, principals, client, transactional and group ids by stable tokens; mapping to FILE.mapping.json',
    )
    .option('--since <time>', 'from TIME (RFC 3339, now, -2h, 30m); default the first poll')
    .option('--until <time>', 'up to TIME; default the last poll')
    .option('--source <operation>', 'only the polls of this operation (its raw history, e.g. GetShadowTopic)')
    .option(
      '--out <file>',
      `the bundle file (created mode 0600, never overwritten); - for stdout without --redact`,
      DEFAULT_EXPORT_FILE,
    )
    .addHelpText(
      'after',
      globalOptionsHelp({ db: READ_DB, cluster: 'which recorded cluster (default: every cluster in the database)' }),
    )
    .action((opts: ExportOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts & ExportOpts>();
      done(runExport(opts, g, io));
    });
}

/** Runs `export` with parsed options; returns the exit code. */
export function runExport(opts: ExportOpts, g: GlobalOpts, io: CliIo): number {
  const since = timeOption('--since', opts.since, io);
  const until = timeOption('--until', opts.until, io);
  if (since !== undefined && until !== undefined && until < since)
    throw new UsageError('--since must not be after --until');
  const source = opts.source;
  if (source !== undefined && !isOperationName(source))
    throw new UsageError(`invalid --source: ${unknownNameMessage('operation', source, OPERATION_NAMES)}`);
  const toStdout = opts.out === '-';
  if (toStdout && opts.redact === true) {
    throw new UsageError('--redact writes the mapping to a separate file next to the bundle: give --out FILE');
  }
  const db = openHistoryReadOnly(dbOpenTarget(g.db, io.cwd), typedDb(g, io.cwd));
  let result: ExportResult;
  let outPath: string | undefined;
  try {
    const reader = createHistoryReader(db);
    if (g.cluster !== undefined && !reader.clusters().includes(g.cluster)) {
      throw new UsageError(
        `no cluster ${JSON.stringify(sanitizeForTerminal(g.cluster))} is recorded; recorded: ${reader.clusters().join(', ')}`,
      );
    }
    const base = {
      since,
      until,
      cluster: g.cluster,
      ...(source === undefined ? {} : { source }),
      redact: opts.redact === true,
      now: io.now(),
      generator: `flightrec ${VERSION}`,
    };
    // raw C1 and bidi controls never reach a terminal (or a file later shown on one): JSON escapes them
    if (toStdout) {
      result = writeExportBundle(reader, (s) => io.stdout.write(escapeUnsafeJson(s)), base);
    } else {
      outPath = resolve(io.cwd, opts.out);
      const mappingPath = `${outPath}.mapping.json`;
      const file = new PrivateFile(outPath);
      let mapping: PrivateFile | undefined;
      try {
        if (base.redact) mapping = new PrivateFile(mappingPath);
        result = writeExportBundle(reader, (s) => file.write(escapeUnsafeJson(s)), {
          ...base,
          ...(mapping === undefined ? {} : { mappingFile: basename(mappingPath) }),
        });
        file.close();
        if (mapping !== undefined) {
          mapping.write(escapeUnsafeJson(mappingDocument(result.mapping, basename(outPath), io.now())));
          mapping.close();
        }
      } catch (err) {
        file.discard();
        mapping?.discard();
        throw writeFailure(err, outPath);
      }
    }
  } finally {
    db.close();
  }
  if (outPath !== undefined) {
    const what = `${result.polls} polls (${result.failed} failed)`;
    const mapped =
      opts.redact === true
        ? `; ${result.mapping.length} values replaced by tokens, mapping in ${outPath}.mapping.json (keep it private)`
        : '';
    io.stderr.write(`exported ${what} to ${outPath}${mapped}\n`);
  }
  return EXIT.ok;
}
