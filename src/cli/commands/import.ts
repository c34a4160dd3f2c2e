/**
 * `flightrec import --op OPERATION [--at TIME] [--request JSON] FILE...`: stores saved answers
 * (response bodies as the API returns them) as polls. A file that does not parse or validate
 * is stored as a failed poll with its raw bytes AND reported (exit 1), never dropped.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { isConnectCode } from '../../api/client/connect-codes.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { JsonNumber, JsonSyntaxError, parseJsonLossless, type JsonValue } from '../../api/codec/lossless-json.ts';
import { isOperationName, OPERATION_NAMES, OPERATIONS, type OperationName } from '../../api/schema/operations.ts';
import { decodeRequest, operationCodecs } from '../../api/wire/answers.ts';
import { defaultMessage } from '../../api/wire/defaults.ts';
import { ValidationError } from '../../api/wire/validation-error.ts';
import { readConfigFile } from '../../collector/index.ts';
import type { PollFailure, PollRecord, PollSuccess } from '../../db/poll-record.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { unknownNameMessage } from '../suggest.ts';
import { globalOptionsHelp } from './help.ts';
import { openHistoryWriter } from './db.ts';
import { dbOpenOptions, dbOpenTarget } from '../db-target.ts';
import { timeOption } from './time-option.ts';

interface ImportOpts {
  op: string;
  at?: string;
  request?: string;
}

interface GlobalOpts {
  db: string;
  dbPasswordFile?: string;
  config?: string;
  cluster?: string;
  output?: string;
}

/** What happened to one file. */
export interface ImportOutcome {
  readonly file: string;
  /** poll id, when stored */
  readonly poll?: string;
  readonly ok: boolean;
  /** why the file is not a valid answer */
  readonly error?: string;
}

/** Registers `import`. */
export function registerImport(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command('import')
    .description('store saved answers (response bodies) as polls; invalid files become failed polls and exit 1')
    .requiredOption('--op <operation>', `the operation that produced the answers: ${OPERATION_NAMES.join(', ')}`)
    .option('--at <time>', "poll time: RFC 3339, now, or relative (-2h); default: each file's modification time")
    .option('--request <json>', 'the request the answer belongs to, as JSON (e.g. {"name":"dr-primary"})')
    .argument('<files...>', 'saved answer files')
    .addHelpText(
      'after',
      globalOptionsHelp({
        db: 'the history database to store into (created when missing)',
        cluster: "the cluster name stored with the polls (default: the config file's, else default)",
        config: 'the cluster name',
        output: ['text', 'json'],
      }),
    )
    .action(async (files: string[], opts: ImportOpts, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOpts & ImportOpts>();
      done(await runImport(files, opts, g, io));
    });
}

async function clusterOf(g: GlobalOpts, io: CliIo): Promise<string> {
  if (g.cluster !== undefined) return g.cluster;
  if (g.config === undefined) return 'default';
  const { parseConfigFile } = await import('../../collector/config-file.ts');
  const file = readConfigFile(resolve(io.cwd, g.config));
  const names = parseConfigFile(file.text, file.path).clusters.map((c) => c.name ?? 'default');
  if (names.length === 1) return names[0]!;
  if (names.length > 1)
    throw new UsageError(`the config lists ${names.length} clusters (${names.join(', ')}): choose one with --cluster`);
  return 'default';
}

function parseRequest(op: OperationName, text: string | undefined): unknown {
  if (text === undefined) return defaultMessage(OPERATIONS[op].request);
  try {
    const decoded = decodeRequest(op, parseJsonLossless(text)) as { $unknown?: Record<string, unknown> };
    if (decoded.$unknown !== undefined) {
      throw new UsageError(`--request: unknown field ${JSON.stringify(Object.keys(decoded.$unknown)[0])} for ${op}`);
    }
    return decoded;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--request: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The target of a poll, from its request (link, or link/topic). */
function targetOf(op: OperationName, request: Record<string, unknown>): string {
  if (op === 'GetShadowLink') return String(request.name ?? '');
  if (op === 'ListShadowTopics') return String(request.shadowLinkName ?? '');
  if (op === 'GetShadowTopic') return `${String(request.shadowLinkName ?? '')}/${String(request.name ?? '')}`;
  return '';
}

/** A Connect error body (`{"code": ..., "message": ...}`) rather than an answer. */
function connectError(json: JsonValue): { code: string; message: string; details: unknown[] } | undefined {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || json instanceof JsonNumber) return undefined;
  const keys = Object.keys(json);
  if (!keys.includes('code') || keys.some((k) => k !== 'code' && k !== 'message' && k !== 'details')) return undefined;
  if (!isConnectCode(json.code)) return undefined;
  return {
    code: json.code,
    message: typeof json.message === 'string' ? json.message : '',
    details: Array.isArray(json.details) ? json.details : [],
  };
}

/** Decodes one saved body into a poll outcome (success, saved Connect error, or invalid answer). */
export function outcomeOf(
  op: OperationName,
  body: Buffer,
): { outcome: PollSuccess | PollFailure; invalid?: string; savedError?: string } {
  const raw = new Uint8Array(body);
  const invalid = (message: string, path?: string): { outcome: PollFailure; invalid: string } => ({
    outcome: {
      ok: false,
      code: 'internal',
      kind: 'invalid_answer',
      message,
      ...(path === undefined ? {} : { path }),
      raw,
      bytes: body.length,
    },
    invalid: message,
  });
  let json: JsonValue;
  try {
    if (body.length === 0) return invalid('answer body is empty');
    json = parseJsonLossless(body);
  } catch (err) {
    return invalid(`answer is not valid JSON: ${err instanceof JsonSyntaxError ? err.message : String(err)}`);
  }
  const error = connectError(json);
  if (error !== undefined) {
    return {
      outcome: {
        ok: false,
        code: error.code,
        kind: 'connect',
        message: error.message,
        details: error.details,
        raw,
        bytes: body.length,
      },
      savedError: `${error.code}: ${error.message}`,
    };
  }
  try {
    const answer = operationCodecs[op].decodeAnswer(json);
    return { outcome: { ok: true, answer, raw, bytes: body.length } };
  } catch (err) {
    if (err instanceof ValidationError)
      return invalid(`answer does not match the ${op} schema: ${err.message}`, err.path);
    return invalid(`cannot decode the answer: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Runs `import`; returns the exit code (1 when a file was invalid or unreadable). */
export async function runImport(files: readonly string[], opts: ImportOpts, g: GlobalOpts, io: CliIo): Promise<number> {
  if (!isOperationName(opts.op))
    throw new UsageError(`--op: ${unknownNameMessage('operation', opts.op, OPERATION_NAMES)}`);
  const op = opts.op;
  const at = timeOption('--at', opts.at, io);
  const baseRequest = parseRequest(op, opts.request) as Record<string, unknown>;
  const cluster = await clusterOf(g, io);
  const writer = openHistoryWriter(dbOpenTarget(g.db, io.cwd), dbOpenOptions(g, io.cwd));
  const outcomes: ImportOutcome[] = [];
  try {
    for (const name of files) {
      const path = resolve(io.cwd, name);
      let body: Buffer;
      let when: bigint;
      try {
        body = readFileSync(path);
        when = at ?? statSync(path, { bigint: true }).mtimeNs;
      } catch (err) {
        const code = (err as { code?: string }).code;
        const error = `cannot read: ${code === 'ENOENT' ? 'no such file' : (code ?? String(err))}`;
        io.stderr.write(sanitizeForTerminal(`flightrec: import ${name}: ${error}\n`));
        outcomes.push({ file: name, ok: false, error });
        continue;
      }
      const { outcome, invalid, savedError } = outcomeOf(op, body);
      const request = { ...baseRequest };
      if (op === 'GetShadowLink' && request.name === '' && outcome.ok) {
        request.name = (outcome.answer as { shadowLink: { name: string } }).shadowLink.name;
      }
      const record: PollRecord = {
        cluster,
        operation: op,
        target: targetOf(op, request),
        request: request as never,
        round: randomUUID(),
        attempt: 1,
        scheduledAt: when,
        startedAt: when,
        endedAt: when,
        outcome,
      };
      let poll: string;
      try {
        // a file whose content cannot be stored as it is becomes a failed poll saying why
        const stored = writer.storePoll(record);
        poll = stored.id.toString();
        if (stored.substituted !== undefined) {
          const error = `cannot be stored as it is (${stored.substituted})`;
          io.stderr.write(
            sanitizeForTerminal(
              `flightrec: import ${name}: ${error}; stored as failed poll ${poll} with its raw bytes\n`,
            ),
          );
          outcomes.push({ file: name, poll, ok: false, error });
          continue;
        }
      } catch (err) {
        const error = `cannot store it: ${err instanceof Error ? err.message : String(err)}`;
        io.stderr.write(sanitizeForTerminal(`flightrec: import ${name}: ${error}\n`));
        outcomes.push({ file: name, ok: false, error });
        continue;
      }
      if (invalid !== undefined)
        io.stderr.write(sanitizeForTerminal(`flightrec: import ${name}: ${invalid} (stored as failed poll ${poll})\n`));
      else if (savedError !== undefined)
        io.stderr.write(
          sanitizeForTerminal(`import ${name}: a saved error answer (${savedError}), stored as failed poll ${poll}\n`),
        );
      else io.stderr.write(sanitizeForTerminal(`import ${name}: stored as poll ${poll}\n`));
      outcomes.push({
        file: name,
        poll,
        ok: invalid === undefined,
        ...(invalid === undefined ? {} : { error: invalid }),
      });
    }
  } finally {
    writer.close();
  }
  if (g.output === 'json') io.stdout.write(`${JSON.stringify(outcomes, null, 2)}\n`);
  return outcomes.every((o) => o.ok) ? EXIT.ok : EXIT.failure;
}
