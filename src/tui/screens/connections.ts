/** The connections at the cursor: a sortable, filterable table coloured by what changed since the previous poll. */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { compactTimeFormat } from '../time-format.ts';
import type { GridExtras } from '../data/grid.ts';
import type { Screen } from '../data/screen.ts';
import { optionalSeg, seg } from '../data/screen.ts';
import type { BrowseSource } from '../data/source.ts';
import { CHANGE_STYLE, type ChangeKind } from '../glyphs.ts';
import type { StackEntry } from '../state/app.ts';
import { countBadge } from './rows.ts';
import { resourceTable } from './resource-table.ts';

/** Builds the connections screen for the instant `at`. */
export function connectionsScreen(source: BrowseSource, entry: StackEntry, at: bigint): Screen {
  const state = source.stateAt<KafkaConnection>('connections', at);
  const changes = source.connectionChanges(at);
  // connections that vanished since the previous poll stay visible once, marked so
  const all = [...state.rows, ...changes.gone];
  const now = state.poll?.startTime ?? at;
  const kindOf = (c: KafkaConnection): ChangeKind => changes.kinds.get(c.uid) ?? 'idle';
  const extras: GridExtras<KafkaConnection> = {
    now,
    rowToken: (c) => CHANGE_STYLE[kindOf(c)].token,
    glyph: (c) => CHANGE_STYLE[kindOf(c)].glyph,
    target: (c) => ({ view: { kind: 'connection', uid: c.uid } }),
  };
  const { grid, rows } = resourceTable('connections', all, entry, extras);
  // the counts of the report's definitions (a connection opened and closed between the polls is new and closed)
  const counts = changes.counts ?? { new: 0, closed: 0, vanished: 0, expired: 0, moving: 0, idle: 0 };
  const poll = state.poll;
  const time = compactTimeFormat(
    [poll?.startTime, changes.previous?.startTime].filter((t): t is bigint => t !== undefined),
    at,
  );
  const panel = [
    [
      optionalSeg('poll ', 'label'),
      seg(poll ? time(poll.startTime) : 'none at or before the cursor', poll ? 'value' : 'warn'),
      seg(' vs ', 'label'),
      seg(changes.previous ? time(changes.previous.startTime) : 'none', 'value'),
      seg('  '),
      seg(`${CHANGE_STYLE.new.glyph} ${counts.new} new  `, CHANGE_STYLE.new.token),
      seg(`${CHANGE_STYLE.closed.glyph} ${counts.closed} closed  `, CHANGE_STYLE.closed.token),
      seg(`${CHANGE_STYLE.vanished.glyph} ${counts.vanished} vanished  `, CHANGE_STYLE.vanished.token),
      seg(`${CHANGE_STYLE.moving.glyph} ${counts.moving} moving  `, CHANGE_STYLE.moving.token),
      seg(`${CHANGE_STYLE.idle.glyph} ${counts.idle} idle`, CHANGE_STYLE.idle.token),
    ],
  ];
  if (poll !== undefined && poll.coverage === 'truncated') {
    panel.push([
      seg(`⚠ the cluster reported ${poll.totalSize} connections; this poll returned ${poll.rowsReturned}`, 'warn'),
    ]);
  }
  return {
    panel,
    grid,
    badge: countBadge(rows.length, all.length),
    empty: entry.filter !== undefined ? 'no connection matches the filter' : 'no connections at this instant',
  };
}
