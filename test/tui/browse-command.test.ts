/** `flightrec browse` as a command: refuses without a terminal, maps its errors, and loads React only when it runs. */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildProgram } from '../../src/cli/main.ts';
import { registerBrowse } from '../../src/cli/commands/browse.ts';
import type { CliIo } from '../../src/cli/context.ts';
import { toCliError } from '../../src/cli/error-codes.ts';
import { UnexpectedError } from '../../src/cli/errors.ts';
import { memoryIo } from '../helpers/memory-io.ts';

/** Runs `flightrec ...args` with browse registered; returns the exit code as the CLI would. */
async function run(args: string[], io: CliIo): Promise<number> {
  let code = 0;
  const program = await buildProgram(io, (c) => {
    code = c;
  });
  // registered by the CLI itself once wired in; register it here until then
  if (!program.commands.some((c) => c.name() === 'browse')) {
    registerBrowse(program, io, (c) => {
      code = c;
    });
  }
  try {
    await program.parseAsync(args, { from: 'user' });
    return code;
  } catch (err) {
    // as main does (src/cli/error-codes.ts), but a bug fails the test instead of printing a stack
    const failure = toCliError(err);
    if (failure instanceof UnexpectedError) throw err;
    io.stderr.write(`flightrec: ${failure.message}\n`);
    return failure.exitCode;
  }
}

/** An io whose stdin and stdout claim to be terminals. */
function terminalIo(): ReturnType<typeof memoryIo> {
  const io = memoryIo({ isTTY: true });
  return Object.assign(io, { stdin: { isTTY: true } as unknown as NodeJS.ReadStream });
}

describe('flightrec browse', () => {
  it('refuses to start without a terminal on stdin and stdout, with a hint', async () => {
    const io = memoryIo();
    expect(await run(['browse'], io)).toBe(2);
    expect(io.err()).toContain('browse needs a terminal on stdin and stdout');
    expect(io.err()).toMatch(/hint: .*flightrec query.*flightrec timeline/);
    expect(io.out()).toBe('');
    const half = Object.assign(memoryIo({ isTTY: true }), { stdin: { isTTY: false } as unknown as NodeJS.ReadStream });
    expect(await run(['browse'], half)).toBe(2);
  });

  it('says which views exist when --view names none', async () => {
    const io = terminalIo();
    expect(await run(['browse', '--view', 'pods'], io)).toBe(2);
    expect(io.err()).toMatch(/unknown view "pods": expected one of overview, connections/);
  });

  it('fails cleanly (exit 1, no terminal switch) when the database cannot be opened', async () => {
    const io = terminalIo();
    expect(await run(['browse', '--db', '/nonexistent/dir/x.db'], io)).toBe(1);
    expect(io.err()).toMatch(/x\.db/);
    expect(io.out()).not.toContain('\u001b[?1049h');
  });

  it('reads the PostgreSQL password from --db-password-file (refusing one others may read)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flightrec-browse-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'pw.txt');
    writeFileSync(file, 'not-shown\n');
    chmodSync(file, 0o644);
    const io = terminalIo();
    // the file is read before any connection: its mode is the error, not the unreachable server
    expect(await run(['browse', '--db', 'postgres://u@127.0.0.1:1/x', '--db-password-file', file], io)).toBe(2);
    expect(io.err()).toContain(`database password file ${file} has mode 0644`);
    expect(io.err()).not.toContain('not-shown');
    expect(io.out()).not.toContain('\u001b[?1049h');
  });

  it('imports the TUI lazily: nothing of React, ink or src/tui at module level', () => {
    const text = readFileSync(new URL('../../src/cli/commands/browse.ts', import.meta.url), 'utf8');
    // whole statements, also when an import spans several lines
    const staticImports = [...text.matchAll(/^import\s[^;]*;/gm)].map((m) => m[0]);
    expect(staticImports.join('\n')).not.toMatch(/react|ink|tui/);
    expect(text).toContain("await import('../../tui/index.ts')");
  });
});
