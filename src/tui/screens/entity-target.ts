/** Where a timeline entity (`broker/3`, `link/dr`, `shadow-topic/dr/orders`, ...) is shown in the browser. */
import type { RowTarget } from '../data/grid.ts';

// eslint-disable-next-line no-control-regex -- finds the control characters a filter string escapes
const CONTROL = /[\u0000-\u001f\u007f]/g;

/** A string as an extended-dialect filter literal (quotes, backslashes and wildcards escaped). */
export function filterString(text: string): string {
  const body = text
    .replace(/[\\"*]/g, (c) => `\\${c}`)
    .replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return `"${body}"`;
}

/** Splits `kind/a/b` into the kind and its names (names never hold a `/`, except the last). */
function parts(entity: string, names: number): { kind: string; names: string[] } {
  const [kind = '', ...rest] = entity.split('/');
  if (rest.length <= names) return { kind, names: rest };
  return { kind, names: [...rest.slice(0, names - 1), rest.slice(names - 1).join('/')] };
}

/** The view (and filter) that shows an event's entity; undefined when no view is about it. */
export function entityTarget(entity: string, eventKind: string): RowTarget['view'] | undefined {
  const kind = entity.split('/')[0] ?? '';
  if (eventKind.startsWith('upgrade.') || kind === 'upgrade') return { kind: 'upgrade' };
  switch (kind) {
    case 'link':
    case 'task': {
      const link = parts(entity, 4).names[0];
      return link === undefined ? { kind: 'shadow-links' } : { kind: 'shadow-link', link };
    }
    case 'shadow-topic': {
      const [link, topic] = parts(entity, 2).names;
      return link === undefined || topic === undefined
        ? { kind: 'shadow-links' }
        : { kind: 'shadow-topic', link, topic };
    }
    case 'iceberg-catalog':
    case 'iceberg-topic':
      return { kind: 'iceberg' };
    case 'connection': {
      const uid = parts(entity, 1).names[0];
      return uid === undefined ? { kind: 'connections' } : { kind: 'connection', uid };
    }
    case 'broker':
    case 'client':
    case 'group':
    case 'principal':
    case 'listener':
    case 'software':
      return { kind: 'connections' };
    case 'api':
      return { kind: 'overview' };
    default:
      return undefined;
  }
}

/** The connections filter that selects an entity's connections (`node_id = 3`), if it names some. */
export function entityFilter(entity: string): string | undefined {
  const { kind, names } = parts(entity, 1);
  const name = names[0];
  if (name === undefined) return undefined;
  switch (kind) {
    case 'broker':
      return /^\d+$/.test(name) ? `node_id = ${name}` : undefined;
    case 'client':
      return `client_id = ${filterString(name)}`;
    case 'group':
      return `group_id = ${filterString(name)}`;
    case 'principal':
      return `authentication_info.user_principal = ${filterString(name)}`;
    case 'listener':
      return `listener_name = ${filterString(name)}`;
    case 'software': {
      const [sw] = parts(entity, 2).names;
      return sw === undefined ? undefined : `client_software_name = ${filterString(sw)}`;
    }
    default:
      return undefined;
  }
}
