/** Glyphs paired with colours, so that every colour also reads as a sign or a word. */
import type { Token } from './theme.ts';

/** What happened to a row since the previous poll. */
export type ChangeKind = 'new' | 'closed' | 'vanished' | 'moving' | 'idle';

/** Glyph, token and word of each change kind. */
export const CHANGE_STYLE: Readonly<Record<ChangeKind, { glyph: string; token: Token; word: string }>> = {
  new: { glyph: '+', token: 'rowNew', word: 'new since the previous poll' },
  closed: { glyph: '×', token: 'rowClosed', word: 'closed since the previous poll (reported CLOSED)' },
  vanished: { glyph: '⊘', token: 'rowClosed', word: 'vanished: no longer listed, without a reported close' },
  moving: { glyph: '↑', token: 'rowMoving', word: 'counters moving' },
  idle: { glyph: '·', token: 'rowIdle', word: 'idle: no counter moved' },
};

/** Glyph and token of each timeline severity. */
export const SEVERITY_STYLE: Readonly<Record<'info' | 'warn' | 'error', { glyph: string; token: Token }>> = {
  info: { glyph: '●', token: 'info' },
  warn: { glyph: '▲', token: 'warn' },
  error: { glyph: '✖', token: 'error' },
};

/** Glyph and token of a poll outcome. */
export function outcomeStyle(ok: boolean): { glyph: string; token: Token } {
  return ok ? { glyph: '✓', token: 'ok' } : { glyph: '✗', token: 'error' };
}
