/**
 * The drill-down from an event to its evidence: the resource view filtered to the entities the
 * evidence names (the clients, principal, broker, listener, software, topic), at the first
 * recorded instant that shows the event. Detectors put names in their evidence as display text
 * (`svc-legacy-client (900), orders-7 (3), +2 more`); the names are read back from it, and a
 * list that was cut (`+2 more`) is not used as a filter (the event's own entity narrows instead).
 */
import type { TimelineEvent } from '../../report/timeline/types.ts';
import type { RowTarget } from '../data/grid.ts';
import { entityFilter, entityTarget, filterString } from './entity-target.ts';

/** Most names a filter lists (a longer list is no help to read). */
const MAX_NAMES = 8;

/** The names of a `name (count), name (count), +N more` evidence text; undefined when the list was cut or is empty. */
export function evidenceNames(text: string | undefined): string[] | undefined {
  if (text === undefined || text === '' || /(^|, )\+\d+ more$/.test(text)) return undefined;
  const names: string[] = [];
  const entry = /(.+?) \((\d+)\)(?:, |$)/gy;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = entry.exec(text)) !== null) {
    names.push(m[1]!);
    end = entry.lastIndex;
  }
  // anything unread means the text is not such a list: no names rather than wrong ones
  return end === text.length && names.length > 0 && names.length <= MAX_NAMES ? names : undefined;
}

/** The value of an evidence field, during the event first (its latest state), else after, else before. */
function evidenceValue(e: TimelineEvent, field: string): string | undefined {
  return e.evidence.during[field] ?? e.evidence.after[field] ?? e.evidence.before[field];
}

/** `(client_id = "a" OR client_id = "b")` for the clients the evidence lists, or undefined. */
function clientsClause(e: TimelineEvent): string | undefined {
  const names = evidenceNames(evidenceValue(e, 'clients'));
  if (names === undefined) return undefined;
  const terms = names.map((n) => `client_id = ${filterString(n)}`);
  return terms.length === 1 ? terms[0] : `(${terms.join(' OR ')})`;
}

/** Joins filter terms with AND (undefined ones left out); undefined when none is left. */
function allOf(...terms: (string | undefined)[]): string | undefined {
  const kept = terms.filter((t): t is string => t !== undefined && t !== '');
  return kept.length === 0 ? undefined : kept.join(' AND ');
}

/** The filter of the connections an event's evidence names. */
function connectionsFilter(e: TimelineEvent): string | undefined {
  const own = entityFilter(e.entity);
  switch (e.kind) {
    case 'connections.auth-failures':
      // the failed authentications themselves, on the event's listener, from the clients it names
      return allOf(own, 'authentication_info.state = FAILURE', clientsClause(e));
    case 'connections.storm':
    case 'connections.stuck-requests':
      return allOf(own, clientsClause(e));
    case 'connections.new-software':
    case 'connections.new-software-version': {
      const name = evidenceValue(e, 'clientSoftwareName');
      const version = evidenceValue(e, 'clientSoftwareVersion');
      const client = evidenceValue(e, 'clientId');
      return name === undefined
        ? own
        : allOf(
            `client_software_name = ${filterString(name)}`,
            version === undefined ? undefined : `client_software_version = ${filterString(version)}`,
            client === undefined ? undefined : `client_id = ${filterString(client)}`,
          );
    }
    case 'connections.new-principal': {
      const client = evidenceValue(e, 'clientId');
      return allOf(own, client === undefined ? undefined : `client_id = ${filterString(client)}`);
    }
    default:
      return own;
  }
}

/** The first recorded instant at or after the event's start (the poll that showed it), else the start. */
function firstShowing(e: TimelineEvent, instants: readonly bigint[]): bigint {
  for (const t of instants) if (t >= e.start) return e.end !== null && t > e.end && e.type === 'interval' ? e.start : t;
  return e.start;
}

/** Where the evidence of an event is shown: a view, its filter, and the instant. */
export function evidenceTarget(e: TimelineEvent, instants: readonly bigint[]): RowTarget {
  const at = firstShowing(e, instants);
  const view = entityTarget(e.entity, e.kind);
  const kind = e.entity.split('/')[0] ?? '';
  let filter: string | undefined;
  if (view?.kind === 'connections') filter = connectionsFilter(e);
  else if (view?.kind === 'upgrade' && kind === 'broker') filter = entityFilter(e.entity);
  else if (view?.kind === 'iceberg' && kind === 'iceberg-topic')
    filter = `topic = ${filterString(e.entity.slice('iceberg-topic/'.length))}`;
  return {
    at,
    drill: true,
    ...(view === undefined ? {} : { view }),
    ...(filter === undefined ? {} : { filter: { expr: filter, negate: false } }),
  };
}
