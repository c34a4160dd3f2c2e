/**
 * Spelling out configuration changes of shadow links: filters added and removed, intervals,
 * pauses, TLS, the authentication alternative, and a rotated password seen through
 * `passwordSetAt` (the password itself is never returned). Cluster text is sanitised here.
 */
import type { Infer } from '../api/schema/fields.ts';
import type { AclFilter, NameFilter, ShadowLink } from '../api/schema/shadow-link.ts';
import { ShadowLinkState } from '../api/schema/enums.ts';
import { describeAclFilter, describeAuthentication, describeNameFilter } from './columns/shadow-links.ts';
import { quoted } from './columns/types.ts';
import type { FieldChange } from './diff-fields.ts';
import { formatDuration, formatTime, shortEnum } from './format-units.ts';

const GROUPS: Readonly<Record<string, string>> = {
  topicMetadataSyncOptions: 'topic metadata sync',
  consumerOffsetSyncOptions: 'consumer offset sync',
  securitySyncOptions: 'ACL sync',
  roleSyncOptions: 'role sync',
  'schemaRegistrySyncOptions.shadowSchemaRegistryApi': 'Schema Registry sync',
};

const FILTER_LISTS: Readonly<Record<string, string>> = {
  'topicMetadataSyncOptions.autoCreateShadowTopicFilters': 'auto-create topic filter',
  'consumerOffsetSyncOptions.groupFilters': 'consumer group filter',
  'roleSyncOptions.roleNameFilters': 'role filter',
  'securitySyncOptions.aclFilters': 'ACL filter',
};

const TLS_PLACES: Readonly<Record<string, string>> = {
  'clientOptions.tlsSettings': 'TLS to the source cluster',
  'schemaRegistrySyncOptions.shadowSchemaRegistryApi.tlsSettings': 'TLS to the source Schema Registry',
};

const ALTERNATIVES: Readonly<Record<string, string>> = {
  plainConfiguration: 'SASL/PLAIN',
  scramConfiguration: 'SASL/SCRAM',
  tlsFileSettings: 'files',
  tlsPemSettings: 'PEM',
  startAtEarliest: 'earliest',
  startAtLatest: 'latest',
  startAtTimestamp: 'a timestamp',
  shadowSchemaRegistryTopic: 'the _schemas topic',
  shadowSchemaRegistryApi: 'the Schema Registry API',
  identity: 'identity',
  exact: 'exact mappings',
};

const INTERVALS: Readonly<Record<string, string>> = {
  interval: 'interval',
  fullSyncInterval: 'full sync interval',
  tailInterval: 'tail interval',
};

const alt = (v: unknown): string => (typeof v === 'string' ? (ALTERNATIVES[v] ?? v) : 'none');

/** Adds a spelled description to the changes of one shadow link that a rule knows. */
export function describeShadowLinkChanges(
  changes: readonly FieldChange[],
  oldRow: ShadowLink,
  newRow: ShadowLink,
): void {
  for (const c of changes) {
    const d = describeOne(c, oldRow, newRow);
    if (d !== undefined) c.description = d;
  }
}

function describeOne(c: FieldChange, oldRow: ShadowLink, newRow: ShadowLink): string | undefined {
  if (c.path === 'status.state') {
    return `link state ${shortEnum(ShadowLinkState, String(c.old))} → ${shortEnum(ShadowLinkState, String(c.new))}`;
  }
  if (!c.path.startsWith('configurations.')) return undefined;
  const path = c.path.slice('configurations.'.length);

  const list = FILTER_LISTS[path.replace(/\[\]$/, '')];
  if (list !== undefined && path.endsWith('[]')) {
    const item = (c.new ?? c.old) as Infer<typeof NameFilter> | Infer<typeof AclFilter>;
    const text = 'accessFilter' in item ? describeAclFilter(item) : describeNameFilter(item);
    return `${list} ${c.new === undefined ? 'removed' : 'added'}: ${text}`;
  }
  if (path === 'clientOptions.bootstrapServers[]') {
    return `bootstrap server ${c.new === undefined ? 'removed' : 'added'}: ${quoted(String(c.new ?? c.old))}`;
  }
  if (path === 'clientOptions.authenticationConfiguration.authentication') {
    const before = describeAuthentication(oldRow.configurations.clientOptions.authenticationConfiguration);
    const after = describeAuthentication(newRow.configurations.clientOptions.authenticationConfiguration);
    return `source authentication changed from ${alt(c.old)} (${before}) to ${alt(c.new)} (${after})`;
  }
  if (path === 'schemaRegistrySyncOptions.mode') {
    return `Schema Registry sync changed from ${alt(c.old)} to ${alt(c.new)}`;
  }
  const password = /^(.*)\.(passwordSetAt|passwordSet)$/.exec(path);
  if (password !== null) return describePassword(password[1]!, password[2]!, c, newRow);

  for (const [place, label] of Object.entries(TLS_PLACES)) {
    if (!path.startsWith(`${place}.`)) continue;
    const field = path.slice(place.length + 1);
    if (field === 'enabled') return `${label} turned ${c.new === true ? 'on' : 'off'}`;
    if (field === 'material') {
      if (c.new === null) return `${label}: certificate material (${alt(c.old)}) removed`;
      if (c.old === null) return `${label}: certificate material set (${alt(c.new)})`;
      return `${label}: certificate material changed from ${alt(c.old)} to ${alt(c.new)}`;
    }
    if (field === 'doNotSetSniHostname')
      return `${label}: SNI host name ${c.new === true ? 'no longer sent' : 'sent again'}`;
    if (field === 'tlsPemSettings.ca') return `${label}: CA certificate replaced`;
    if (field === 'tlsPemSettings.cert') return `${label}: client certificate replaced`;
    if (field === 'tlsPemSettings.keyFingerprint') {
      return `${label}: client key replaced (fingerprint ${quoted(String(c.old))} → ${quoted(String(c.new))})`;
    }
    if (field.startsWith('tlsFileSettings.')) {
      const what = { caPath: 'CA path', certPath: 'certificate path', keyPath: 'key path' }[field.slice(16)] ?? field;
      return `${label}: ${what} ${quoted(String(c.old ?? ''))} → ${quoted(String(c.new ?? ''))}`;
    }
  }

  for (const [group, label] of Object.entries(GROUPS)) {
    if (!path.startsWith(`${group}.`)) continue;
    const field = path.slice(group.length + 1);
    if (field === 'paused') return `${label} ${c.new === true ? 'paused' : 'resumed'}`;
    const effective = field.startsWith('effective');
    const base = effective ? field.charAt(9).toLowerCase() + field.slice(10) : field;
    const kind = INTERVALS[base];
    if (kind !== undefined && typeof c.old === 'bigint' && typeof c.new === 'bigint') {
      return `${label} ${effective ? 'effective ' : ''}${kind} ${showDuration(c.old)} → ${showDuration(c.new)}`;
    }
    if (field === 'startOffset') return `${label}: new topics start at ${alt(c.new)} (was ${alt(c.old)})`;
  }
  return undefined;
}

const showDuration = (ns: bigint): string => (ns === 0n ? 'unset' : formatDuration(ns));

function describePassword(place: string, field: string, c: FieldChange, row: ShadowLink): string {
  const who = place.startsWith('schemaRegistrySyncOptions') ? 'Schema Registry password' : 'source password';
  const user = userAt(row, place);
  const forUser = user === undefined || user === '' ? '' : ` of user ${quoted(user)}`;
  if (field === 'passwordSet') return `${who}${forUser} ${c.new === true ? 'set' : 'removed'}`;
  const before = typeof c.old === 'bigint' ? formatTime(c.old) : 'unset';
  const after = typeof c.new === 'bigint' ? formatTime(c.new) : 'unset';
  if (typeof c.new === 'bigint' && c.new === 0n) return `${who}${forUser} no longer set (was set at ${before})`;
  if (typeof c.old === 'bigint' && c.old === 0n) return `${who}${forUser} set at ${after}`;
  return `${who}${forUser} rotated: set at ${after} (previously ${before})`;
}

/** The user name next to a password, found by the password's parent path. */
function userAt(row: ShadowLink, place: string): string | undefined {
  let node: unknown = row.configurations;
  for (const step of place.split('.')) {
    if (node === undefined || node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[step];
  }
  const user = (node as { username?: unknown } | undefined)?.username;
  return typeof user === 'string' ? user : undefined;
}
