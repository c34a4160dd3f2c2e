/** How a connection is grouped for trends: by its uid, client id, principal, group, listener, broker or software. */
import type { KafkaConnection } from '../../api/schema/connection.ts';

/** The slow fields of a connection that its group keys and label read (a KafkaConnection, or a stored version, has them all). */
export type KeyFacts = Readonly<
  Pick<
    KafkaConnection,
    | 'uid'
    | 'nodeId'
    | 'clientId'
    | 'clientSoftwareName'
    | 'clientSoftwareVersion'
    | 'groupId'
    | 'listenerName'
    | 'state'
  >
> & {
  readonly authenticationInfo: Readonly<Pick<KafkaConnection['authenticationInfo'], 'userPrincipal'>>;
  readonly source: Readonly<Pick<KafkaConnection['source'], 'ipAddress' | 'port'>>;
};

/** The group key of a connection for `--by KEY`. */
export function connectionKey(by: string, c: KeyFacts): string {
  switch (by) {
    case 'connection':
      return c.uid;
    case 'client':
      return c.clientId;
    case 'principal':
      return c.authenticationInfo.userPrincipal || '(none)';
    case 'group':
      return c.groupId || '(none)';
    case 'listener':
      return c.listenerName;
    case 'broker':
      return String(c.nodeId);
    case 'software':
      return c.clientSoftwareName === '' ? '(unknown)' : `${c.clientSoftwareName} ${c.clientSoftwareVersion}`.trim();
    case 'rollup':
      return rollupKey(c);
    case 'state':
      return c.state.replace('KAFKA_CONNECTION_STATE_', '');
    default:
      return '';
  }
}

/** A short description of a connection, for rows keyed by uid. */
export function connectionLabel(c: KeyFacts): string {
  const who = c.authenticationInfo.userPrincipal || '-';
  return `${c.clientId} ${who} broker ${c.nodeId} ${c.source.ipAddress}:${c.source.port}`;
}

const rollupKeys = new WeakMap<KeyFacts, string>();

/** The connection group of the rollups: node, listener, principal, client id and software, as JSON (memoised per row). */
export function rollupKey(c: KeyFacts): string {
  let k = rollupKeys.get(c);
  if (k === undefined) {
    k = JSON.stringify([
      c.nodeId,
      c.listenerName,
      connectionKey('principal', c),
      c.clientId,
      connectionKey('software', c),
    ]);
    rollupKeys.set(c, k);
  }
  return k;
}
