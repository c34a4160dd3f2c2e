/** The browser's views: what each one shows, its `:` name, and which resource its filter applies to. */
import type { ResourceName } from '../../api/schema/resources.ts';

/** A reference to one screen, with the entity it is about (the view stack holds these). */
export type ViewRef =
  | { readonly kind: 'overview' }
  | { readonly kind: 'connections' }
  | { readonly kind: 'connection'; readonly uid: string }
  | { readonly kind: 'shadow-links' }
  | { readonly kind: 'shadow-link'; readonly link: string }
  | { readonly kind: 'shadow-topic'; readonly link: string; readonly topic: string }
  | { readonly kind: 'upgrade' }
  | { readonly kind: 'iceberg' }
  | { readonly kind: 'timeline' }
  | { readonly kind: 'diff' }
  /** one timeline event whole (`key`: its eventKey), opened from the timeline or the overview's latest events */
  | { readonly kind: 'event'; readonly key: string };

/** The kind of a view. */
export type ViewKind = ViewRef['kind'];

/** Views reachable by name with `:`, in the order completion lists them. */
export const TOP_VIEWS = ['overview', 'connections', 'shadow-links', 'upgrade', 'iceberg', 'timeline', 'diff'] as const;

/** A view reachable by name. */
export type TopView = (typeof TOP_VIEWS)[number];

/** Aliases accepted after `:` (k9s style short names). */
const ALIASES: Readonly<Record<string, TopView>> = {
  o: 'overview',
  ov: 'overview',
  c: 'connections',
  conn: 'connections',
  co: 'connections',
  sl: 'shadow-links',
  shadow: 'shadow-links',
  links: 'shadow-links',
  up: 'upgrade',
  ice: 'iceberg',
  ib: 'iceberg',
  tl: 'timeline',
  events: 'timeline',
  d: 'diff',
};

/** Resolves a `:` command to a view name, by full name, alias or unique prefix; undefined otherwise. */
export function resolveViewName(text: string): TopView | undefined {
  const t = text.trim().toLowerCase();
  if (t === '') return undefined;
  const exact = TOP_VIEWS.find((v) => v === t);
  if (exact !== undefined) return exact;
  const alias = ALIASES[t];
  if (alias !== undefined) return alias;
  const prefixed = TOP_VIEWS.filter((v) => v.startsWith(t));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** Completion candidates for a partial `:` command. */
export function completeViewName(text: string): TopView[] {
  const t = text.trim().toLowerCase();
  return TOP_VIEWS.filter((v) => v.startsWith(t));
}

/** The resource a view's filter is checked against; undefined when the view takes no filter. */
export function filterResource(view: ViewRef): ResourceName | undefined {
  switch (view.kind) {
    case 'connections':
      return 'connections';
    case 'shadow-links':
      return 'shadow-links';
    case 'shadow-link':
      return 'shadow-topics';
    case 'shadow-topic':
      return 'shadow-partitions';
    case 'upgrade':
      return 'upgrade-members';
    case 'iceberg':
      return 'iceberg-partitions';
    default:
      return undefined;
  }
}

/** Short title of a view, for breadcrumbs; cluster strings are sanitised by the caller. */
export function viewTitle(view: ViewRef): string {
  switch (view.kind) {
    case 'connection':
      return `connection ${view.uid}`;
    case 'shadow-link':
      return `link ${view.link}`;
    case 'shadow-topic':
      return `topic ${view.topic}`;
    case 'event':
      return `event ${view.key.split('\u0000')[0] ?? ''}`;
    default:
      return view.kind;
  }
}

/** True when two view references point at the same screen. */
export function sameView(a: ViewRef, b: ViewRef): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
