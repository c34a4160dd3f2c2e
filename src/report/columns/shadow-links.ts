/** Columns of `shadow-links`, and the short spellings of link configuration shared with diff. */
import type { Infer } from '../../api/schema/fields.ts';
import {
  AclOperation,
  AclPattern,
  AclPermissionType,
  AclResource,
  FilterType,
  PatternType,
  ScramMechanism,
  ShadowLinkState,
  TaskState,
} from '../../api/schema/enums.ts';
import type {
  AclFilter,
  AuthenticationConfiguration,
  NameFilter,
  ShadowLink,
  TlsSettings,
} from '../../api/schema/shadow-link.ts';
import { formatDuration, NONE, shortEnum } from '../format-units.ts';
import { cell, numberColumn, quoted, stateTone, textColumn, type ColumnModel } from './types.ts';

const linkState = (l: ShadowLink): string => shortEnum(ShadowLinkState, l.status.state);
const linkTone = stateTone(['ACTIVE'], ['PAUSED'], []);

/** `SCRAM_SHA_256 user "repl"`, `PLAIN user "repl"` or `none`, with `(no password)` when unset. */
export function describeAuthentication(auth: Infer<typeof AuthenticationConfiguration>): string {
  if (auth.scramConfiguration !== undefined) {
    const s = auth.scramConfiguration;
    return `${shortEnum(ScramMechanism, s.scramMechanism)} user ${quoted(s.username)}${s.passwordSet ? '' : ' (no password)'}`;
  }
  if (auth.plainConfiguration !== undefined) {
    const p = auth.plainConfiguration;
    return `PLAIN user ${quoted(p.username)}${p.passwordSet ? '' : ' (no password)'}`;
  }
  return 'none';
}

/** `on (files)`, `on (PEM)`, `on`, `off`, or `not set` when the answer carries no TLS settings. */
export function describeTls(tls: Infer<typeof TlsSettings> | undefined): string {
  if (tls === undefined) return 'not set';
  if (!tls.enabled) return 'off';
  const material = tls.tlsFileSettings !== undefined ? ' (files)' : tls.tlsPemSettings !== undefined ? ' (PEM)' : '';
  return `on${material}${tls.doNotSetSniHostname ? ', no SNI' : ''}`;
}

/** `include prefix "orders."`, `exclude literal "tmp"`. */
export function describeNameFilter(f: Infer<typeof NameFilter>): string {
  const type = shortEnum(FilterType, f.filterType).toLowerCase();
  const pattern = shortEnum(PatternType, PatternType.aliases[f.patternType] ?? f.patternType).toLowerCase();
  return `${type} ${pattern} ${quoted(f.name)}`;
}

/** `allow read on topic prefixed "orders." for "User:bob" from "*"`. */
export function describeAclFilter(f: Infer<typeof AclFilter>): string {
  const a = f.accessFilter;
  const r = f.resourceFilter;
  const perm = shortEnum(AclPermissionType, a.permissionType).toLowerCase();
  const op = shortEnum(AclOperation, a.operation).toLowerCase();
  const res = shortEnum(AclResource, r.resourceType).toLowerCase();
  const pat = shortEnum(AclPattern, r.patternType).toLowerCase();
  const name = r.name === '' ? '' : ` ${quoted(r.name)}`;
  const principal = a.principal === '' ? '' : ` for ${quoted(a.principal)}`;
  const host = a.host === '' ? '' : ` from ${quoted(a.host)}`;
  return `${perm} ${op} on ${res} ${pat}${name}${principal}${host}`;
}

/** `30s` or `30s (paused)`; the effective interval when the configured one is unset. */
function syncSummary(o: { interval: bigint; effectiveInterval: bigint; paused: boolean }): string {
  const interval = o.interval !== 0n ? o.interval : o.effectiveInterval;
  const text = interval === 0n ? NONE : formatDuration(interval);
  return o.paused ? `${text} (paused)` : text;
}

/** `topic` or `api`, or `-` when Schema Registry sync is off. */
function schemaRegistryMode(l: ShadowLink): string {
  const sr = l.configurations.schemaRegistrySyncOptions;
  if (sr.shadowSchemaRegistryApi !== undefined) return sr.shadowSchemaRegistryApi.paused ? 'api (paused)' : 'api';
  if (sr.shadowSchemaRegistryTopic !== undefined) return 'topic';
  return NONE;
}

function tasks(l: ShadowLink): string {
  const all = l.status.taskStatuses;
  const active = all.filter((t) => shortEnum(TaskState, t.state) === 'ACTIVE').length;
  return `${active}/${all.length}`;
}

function bootstrap(l: ShadowLink): string {
  const servers = l.configurations.clientOptions.bootstrapServers;
  if (servers.length === 0) return NONE;
  return servers.length === 1 ? cell(servers[0]!) : `${cell(servers[0]!)} +${servers.length - 1}`;
}

/** The column model of shadow links. */
export const shadowLinkColumns: ColumnModel<ShadowLink> = {
  resource: 'shadow-links',
  label: (l) => cell(l.name),
  columns: [
    textColumn('name', 'NAME', (l) => cell(l.name), { orderBy: 'name', priority: 1, min: 12, identity: true }),
    textColumn('state', 'STATE', linkState, {
      tone: (l) => linkTone(linkState(l)),
      orderBy: 'status.state',
      priority: 1,
    }),
    numberColumn('topics', 'TOPICS', (l) => String(l.status.shadowTopics.length)),
    numberColumn('tasks', 'TASKS', tasks, {
      tone: (l) =>
        l.status.taskStatuses.every((t) => shortEnum(TaskState, t.state) === 'ACTIVE') ? undefined : 'warn',
      priority: 1,
    }),
    textColumn('bootstrap', 'BOOTSTRAP', bootstrap, { priority: 3, min: 12 }),
    textColumn(
      'auth',
      'AUTH',
      (l) => describeAuthentication(l.configurations.clientOptions.authenticationConfiguration),
      { priority: 3, min: 12 },
    ),
    textColumn('tls', 'TLS', (l) => describeTls(l.configurations.clientOptions.tlsSettings), { priority: 3 }),
    textColumn('uid', 'UID', (l) => cell(l.uid), { wide: true, orderBy: 'uid' }),
    textColumn('sourceCluster', 'SOURCE CLUSTER', (l) => cell(l.configurations.clientOptions.sourceClusterId), {
      wide: true,
    }),
    textColumn('topicSync', 'TOPIC SYNC', (l) => syncSummary(l.configurations.topicMetadataSyncOptions), {
      wide: true,
    }),
    textColumn('offsetSync', 'OFFSET SYNC', (l) => syncSummary(l.configurations.consumerOffsetSyncOptions), {
      wide: true,
    }),
    textColumn('aclSync', 'ACL SYNC', (l) => syncSummary(l.configurations.securitySyncOptions), { wide: true }),
    textColumn('roleSync', 'ROLE SYNC', (l) => syncSummary(l.configurations.roleSyncOptions), { wide: true }),
    textColumn('schemaRegistry', 'SCHEMA REGISTRY', schemaRegistryMode, { wide: true }),
    textColumn('srError', 'SR ERROR', (l) => cell(l.status.schemaRegistrySyncStatus.lastErrorMessage), {
      wide: true,
      tone: (l) => (l.status.schemaRegistrySyncStatus.lastErrorMessage === '' ? undefined : 'error'),
    }),
  ],
};
