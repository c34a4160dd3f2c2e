/**
 * The one keymap of the browser: every binding, the views it applies to, and its help text.
 * The key handler, the footer and the `?` help screen all read this table.
 */
import type { ViewKind } from './state/views.ts';

/** What a key does. */
export type Command =
  | 'down'
  | 'up'
  | 'page-down'
  | 'page-up'
  | 'top'
  | 'bottom'
  | 'enter'
  | 'back'
  | 'quit'
  | 'help'
  | 'command'
  | 'filter'
  | 'time'
  | 'step-back'
  | 'step-forward'
  | 'jump-back'
  | 'jump-forward'
  | 'latest'
  | 'follow'
  | 'sort-next'
  | 'sort-reverse'
  | 'mark'
  | 'clear-marks'
  | 'save'
  | 'clusters'
  | 'detail'
  | 'evidence'
  | 'next-event'
  | 'prev-event';

/** One binding: keys (names from input/keys.ts), what they do, where, and how to explain it. */
export interface Binding {
  readonly command: Command;
  readonly keys: readonly string[];
  /** how the keys are written in help and footer */
  readonly label: string;
  readonly help: string;
  /** the views it applies to; undefined means every view */
  readonly views?: readonly ViewKind[];
  /** shown in the footer with this short text (the help screen lists everything) */
  readonly footer?: string;
  /** help group */
  readonly group: 'navigate' | 'time' | 'view' | 'general';
}

const DRILL_VIEWS: readonly ViewKind[] = [
  'overview',
  'connections',
  'connection',
  'shadow-links',
  'shadow-link',
  'timeline',
  'diff',
  'event',
];

/** Views that list events (the timeline, the overview's latest events) or show one. */
const EVENT_VIEWS: readonly ViewKind[] = ['overview', 'timeline', 'event'];

/** Every key binding. */
export const KEYMAP: readonly Binding[] = [
  { command: 'down', keys: ['j', 'down'], label: 'j/↓', help: 'next row', group: 'navigate' },
  { command: 'up', keys: ['k', 'up'], label: 'k/↑', help: 'previous row', group: 'navigate' },
  { command: 'page-down', keys: ['pgdn', 'ctrl+f', ' '], label: 'PgDn', help: 'next page', group: 'navigate' },
  { command: 'page-up', keys: ['pgup', 'ctrl+b'], label: 'PgUp', help: 'previous page', group: 'navigate' },
  { command: 'top', keys: ['g', 'home'], label: 'g', help: 'first row', group: 'navigate' },
  { command: 'bottom', keys: ['G', 'end'], label: 'G', help: 'last row', group: 'navigate' },
  {
    command: 'enter',
    keys: ['enter'],
    label: 'Enter',
    help: 'open the selected entry',
    views: DRILL_VIEWS,
    footer: 'open',
    group: 'navigate',
  },
  {
    command: 'evidence',
    keys: ['e'],
    label: 'e',
    help: "the event's evidence: the resource view filtered to the clients, principals, brokers or topics it names, at the event's start (one Esc comes back)",
    views: EVENT_VIEWS,
    footer: 'evidence',
    group: 'navigate',
  },
  {
    command: 'next-event',
    keys: ['n'],
    label: 'n',
    help: 'the next event of the list, without leaving the detail',
    views: ['event'],
    footer: 'next',
    group: 'navigate',
  },
  {
    command: 'prev-event',
    keys: ['p'],
    label: 'p',
    help: 'the previous event of the list',
    views: ['event'],
    footer: 'prev',
    group: 'navigate',
  },
  {
    command: 'detail',
    keys: ['d'],
    label: 'd',
    help: 'the selected event whole: description, start and end, evidence, polls (Enter too)',
    views: ['overview', 'timeline'],
    group: 'navigate',
  },
  {
    command: 'back',
    keys: ['esc'],
    label: 'Esc',
    help: 'back: clear the filter, then the previous view',
    footer: 'back',
    group: 'navigate',
  },
  {
    command: 'command',
    keys: [':'],
    label: ':',
    help: 'go to a view by name (Tab completes)',
    footer: 'view',
    group: 'navigate',
  },
  {
    command: 'clusters',
    keys: ['C'],
    label: 'C',
    help: 'pick another recorded cluster (also :clusters)',
    group: 'navigate',
  },
  { command: 'step-back', keys: ['['], label: '[', help: 'one poll back in time', footer: 'prev poll', group: 'time' },
  {
    command: 'step-forward',
    keys: [']'],
    label: ']',
    help: 'one poll forward in time',
    footer: 'next poll',
    group: 'time',
  },
  { command: 'jump-back', keys: ['{'], label: '{', help: 'ten polls back', group: 'time' },
  { command: 'jump-forward', keys: ['}'], label: '}', help: 'ten polls forward', group: 'time' },
  {
    command: 'time',
    keys: ['t'],
    label: 't',
    help: "go to a time as tables show it: 00:04:30 (the cursor's day), 2026-01-02, RFC 3339, -5m/+30s (from the cursor), now, latest, first",
    footer: 'time',
    group: 'time',
  },
  { command: 'latest', keys: ['T'], label: 'T', help: 'back to the latest poll', group: 'time' },
  { command: 'follow', keys: ['F'], label: 'F', help: 'follow new polls as they are recorded', group: 'time' },
  { command: 'mark', keys: ['m'], label: 'm', help: 'mark this instant for a diff (A, B)', group: 'time' },
  { command: 'clear-marks', keys: ['M'], label: 'M', help: 'clear the diff marks', group: 'time' },
  {
    command: 'filter',
    keys: ['/'],
    label: '/',
    help: 'filter rows (extended filter; /! negates; Esc clears)',
    views: ['connections', 'shadow-links', 'shadow-link', 'shadow-topic', 'upgrade', 'iceberg'],
    footer: 'filter',
    group: 'view',
  },
  {
    command: 'sort-next',
    keys: ['s'],
    label: 's',
    help: 'sort by the next column',
    views: [
      'connections',
      'connection',
      'shadow-links',
      'shadow-link',
      'shadow-topic',
      'upgrade',
      'iceberg',
      'timeline',
      'diff',
    ],
    footer: 'sort',
    group: 'view',
  },
  {
    command: 'sort-reverse',
    keys: ['S'],
    label: 'S',
    help: 'reverse the sort order',
    views: [
      'connections',
      'connection',
      'shadow-links',
      'shadow-link',
      'shadow-topic',
      'upgrade',
      'iceberg',
      'timeline',
      'diff',
    ],
    group: 'view',
  },
  {
    command: 'save',
    keys: ['ctrl+s'],
    label: 'ctrl-s',
    help: 'save this view as CSV (tables) or JSON next to the database',
    group: 'general',
  },
  { command: 'help', keys: ['?'], label: '?', help: 'help for this view', footer: 'help', group: 'general' },
  { command: 'quit', keys: ['q', 'ctrl+c'], label: 'q', help: 'quit', footer: 'quit', group: 'general' },
];

/** The bindings that apply in a view, in table order. */
export function bindingsFor(view: ViewKind): Binding[] {
  return KEYMAP.filter((b) => b.views === undefined || b.views.includes(view));
}

/** The command a key runs in a view, if any. */
export function commandForKey(key: string, view: ViewKind): Command | undefined {
  for (const b of KEYMAP) {
    if (b.keys.includes(key) && (b.views === undefined || b.views.includes(view))) return b.command;
  }
  return undefined;
}

/** What Enter opens in each view (the help screen says it). */
export const ENTER_HELP: Readonly<Partial<Record<ViewKind, string>>> = {
  overview: "open the selected event's detail",
  connections: 'open the connection',
  connection: 'move the time cursor to the selected sample',
  'shadow-links': "open the link's tasks and topics",
  'shadow-link': "open the topic's partitions",
  timeline: "open the event's detail (whole description, evidence, polls)",
  diff: 'open the changed entity',
  event: "move the time cursor to the event's start and open its entity",
};
