/**
 * The one error type of the command line: every error a command may end with becomes a
 * CliError with the exit code docs/cli.md gives and the text `main` prints after `flightrec: `.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/collector/config-error.ts';
import { TimeArgError } from '../../src/collector/time-args.ts';
import { CorruptDataError, DatabaseOpenError, HistoryQueryError } from '../../src/db/errors.ts';
import { FilterError } from '../../src/filter/errors.ts';
import { PgError } from '../../src/db/engines/pg/sync-database.ts';
import { compileFilter } from '../../src/filter/index.ts';
import { toCliError } from '../../src/cli/error-codes.ts';
import { CliError, RuntimeError, UnexpectedError, UsageError } from '../../src/cli/errors.ts';
import { main } from '../../src/cli/main.ts';
import { QueryOptionsError } from '../../src/report/query.ts';
import { memoryIo } from '../helpers/memory-io.ts';

describe('toCliError', () => {
  it.each([
    ['a UsageError', new UsageError('bad flag'), 2, 'bad flag'],
    ['a RuntimeError', new RuntimeError('no file'), 1, 'no file'],
    ['a CliError with its own code', new CliError('trouble', 3), 3, 'trouble'],
    [
      'a ConfigError',
      new ConfigError('clusters[0].timeout', 'must be a duration'),
      2,
      'clusters[0].timeout: must be a duration',
    ],
    ['a TimeArgError', new TimeArgError('invalid time "x"'), 2, 'invalid time "x"'],
    ['a report option error', new QueryOptionsError('since is after until'), 2, 'since is after until'],
    [
      'a store open error',
      new DatabaseOpenError('/tmp/x.db', 'not a database'),
      1,
      'cannot open history database /tmp/x.db: not a database',
    ],
    ['a query error', new HistoryQueryError('no poll with id 7'), 1, 'no poll with id 7'],
    // PostgreSQL refusing a statement, or the connection lost mid-command: a message, no stack
    [
      'a PostgreSQL error',
      new PgError('terminating connection due to administrator command', '57P01', true),
      1,
      'terminating connection due to administrator command',
    ],
  ] as const)('%s', (_, err, code, text) => {
    const failure = toCliError(err);
    expect(failure.exitCode).toBe(code);
    expect(failure.text).toBe(text);
    if (err instanceof CliError) expect(failure).toBe(err);
    else expect(failure.cause).toBe(err);
  });

  it('damaged data is a runtime failure naming the site', () => {
    const failure = toCliError(new CorruptDataError('a count beyond the frame', { poll: 12 }));
    expect(failure.exitCode).toBe(1);
    expect(failure.text).toMatch(/poll 12/);
  });

  it('a filter error keeps its caret display', () => {
    let err: unknown;
    try {
      compileFilter('node_id = = 1', { resource: 'connections', dialect: 'extended' });
    } catch (e) {
      err = e;
    }
    if (!(err instanceof FilterError)) throw new Error(`expected a FilterError, got ${String(err)}`);
    const failure = toCliError(err);
    expect(failure.exitCode).toBe(2);
    expect(failure.text).toBe(err.render());
    expect(failure.text.split('\n').length).toBeGreaterThan(2);
  });

  it('anything else is unexpected: exit 1 with the stack', () => {
    const failure = toCliError(new TypeError('x is undefined'));
    expect(failure).toBeInstanceOf(UnexpectedError);
    expect(failure.exitCode).toBe(1);
    expect(failure.text).toMatch(/^unexpected error: TypeError: x is undefined\n\s+at /);
    expect(toCliError('a string').text).toBe('unexpected error: a string');
  });

  it('the text is safe for a terminal', () => {
    expect(toCliError(new UsageError('bad \u001b[31mred\u001b[0m value')).text).not.toContain('\u001b');
    expect(toCliError(new HistoryQueryError('cluster "\u009bx"')).text).not.toContain('\u009b');
  });
});

describe('main', () => {
  it('prints a command error once, as flightrec: TEXT, and returns its code', async () => {
    const io = memoryIo();
    const code = await main(['query', 'connections', '--at', 'yesterday-ish'], io);
    expect(code).toBe(2);
    expect(io.err()).toMatch(/^flightrec: --at: /);
    expect(io.err().trim().split('\n')).toHaveLength(1);
  });
});
