/**
 * `flightrec db check`: verifies every stored encoding of the history database and lists the
 * damaged items with the polls and times they cover. Exit 0 when clean, 1 when damage is found
 * (or the file cannot be opened at all).
 */
import type { Command } from 'commander';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { sanitizeForTerminal } from '../../api/safe-text.ts';
import { checkStore, openDatabase, type Damage, type StoreCheck } from '../../db/index.ts';
import { EXIT, UsageError, type CliIo } from '../context.ts';
import { globalOptionsHelp } from './help.ts';
import { requireDatabase } from './missing-db.ts';
import { dbOpenOptions, dbOpenTarget, dbShown } from '../db-target.ts';

/** Where a damaged item is and what it covers, on one line. */
function describeDamage(d: Damage): string {
  const p = d.polls;
  const range =
    p === undefined
      ? ''
      : ` (poll${p.first === p.last ? ` ${p.first}` : `s ${p.first}-${p.last}`}` +
        (p.from === undefined
          ? ''
          : `, ${formatTimestampShort(p.from)}${p.to === undefined || p.to === p.from ? '' : ` .. ${formatTimestampShort(p.to)}`}`) +
        ')';
  return `damaged: table ${d.table}, ${sanitizeForTerminal(d.item)}${range}: ${sanitizeForTerminal(d.reason)}`;
}

/** The text form of a check. */
export function formatCheck(c: StoreCheck, path: string): string {
  const counts = Object.entries(c.checked)
    .map(([table, n]) => `${n} ${table}`)
    .join(', ');
  const lines = [`checked ${sanitizeForTerminal(path)}: ${counts}`];
  for (const d of c.damage) lines.push(describeDamage(d));
  if (c.truncated) lines.push(`(listing stopped at ${c.damage.length} damaged items)`);
  if (c.damage.length === 0) lines.push('no damage found');
  else {
    lines.push(
      `${c.damage.length}${c.truncated ? '+' : ''} damaged item${c.damage.length === 1 ? '' : 's'}: readers stop with an error where they meet one; ` +
        'read around the damaged polls (--since/--until, --at) or restore the file from a backup',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The JSON form of a check (times as RFC 3339, texts made safe for a terminal). */
function checkJson(c: StoreCheck, path: string): string {
  const damage = c.damage.map((d) => ({
    table: d.table,
    item: sanitizeForTerminal(d.item),
    ...(d.polls === undefined
      ? {}
      : {
          firstPoll: d.polls.first,
          lastPoll: d.polls.last,
          ...(d.polls.from === undefined ? {} : { from: formatTimestampShort(d.polls.from) }),
          ...(d.polls.to === undefined ? {} : { to: formatTimestampShort(d.polls.to) }),
        }),
    reason: sanitizeForTerminal(d.reason),
  }));
  return `${JSON.stringify({ database: path, clean: c.damage.length === 0, checked: c.checked, damage, truncated: c.truncated }, null, 2)}\n`;
}

/** Registers `db check` under the `db` command. */
export function registerDbCheck(db: Command, io: CliIo, done: (code: number) => void): void {
  db.command('check')
    .description(
      'verify every stored chunk, frame, version, dictionary entry, answer and raw body; list damaged ranges (exit 1 when damaged)',
    )
    .addHelpText('after', globalOptionsHelp({ db: 'the history database to verify', output: ['table', 'json'] }))
    .action((_opts: unknown, cmd: Command) => {
      const g = cmd.optsWithGlobals<{ db: string; dbPasswordFile?: string; output?: string }>();
      if (g.output !== undefined && g.output !== 'table' && g.output !== 'json') {
        throw new UsageError(`invalid --output ${JSON.stringify(g.output)}: expected table or json`);
      }
      const path = dbOpenTarget(g.db, io.cwd);
      const shown = dbShown(g.db, io.cwd);
      requireDatabase(path, g.db, io.cwd);
      const store = openDatabase(path, { readonly: true, ...dbOpenOptions(g, io.cwd) });
      let result: StoreCheck;
      try {
        result = checkStore(store);
      } finally {
        store.close();
      }
      io.stdout.write(g.output === 'json' ? checkJson(result, shown) : formatCheck(result, shown));
      if (result.damage.length > 0) {
        const n = `${result.damage.length}${result.truncated ? '+' : ''}`;
        io.stderr.write(
          `flightrec: the history database ${shown} is damaged: ${n} damaged item${n === '1' ? '' : 's'} (listed on stdout)\n`,
        );
      }
      done(result.damage.length === 0 ? EXIT.ok : EXIT.failure);
    });
}
