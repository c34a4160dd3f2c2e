/** GetShadowLink: the shadow link resource with every configuration group and its status. */
import { f, message, oneof, optional, type Infer } from './fields.ts';
import {
  AclOperation,
  AclPattern,
  AclPermissionType,
  AclResource,
  FilterType,
  PatternType,
  SchemaRegistrySyncType,
  ScramMechanism,
  ShadowLinkState,
  TaskState,
  UnsupportedSchemaFeaturePolicy,
} from './enums.ts';
import { ShadowTopic } from './shadow-topic.ts';

/** SASL/PLAIN credentials toward the source; the password is never returned. */
export const PlainConfiguration = message('PlainConfiguration', {
  username: f.string(),
  passwordSet: f.bool(),
  passwordSetAt: f.timestamp(),
});
/** SASL/SCRAM credentials toward the source; the password is never returned. */
export const ScramConfiguration = message('ScramConfiguration', {
  username: f.string(),
  scramMechanism: f.enum(ScramMechanism),
  passwordSet: f.bool(),
  passwordSetAt: f.timestamp(),
});
/** One of the authentication alternatives. */
export const AuthenticationConfiguration = message('AuthenticationConfiguration', {
  plainConfiguration: oneof('authentication', f.message(PlainConfiguration)),
  scramConfiguration: oneof('authentication', f.message(ScramConfiguration)),
});
/** Certificate material as file paths. */
export const TlsFileSettings = message('TlsFileSettings', {
  caPath: f.string(),
  certPath: f.string(),
  keyPath: f.string(),
});
/** Certificate material inline (the key only as a fingerprint). */
export const TlsPemSettings = message('TlsPemSettings', {
  ca: f.string(),
  cert: f.string(),
  keyFingerprint: f.string(),
});
/** TLS settings toward the source cluster or source Schema Registry. */
export const TlsSettings = message('TlsSettings', {
  enabled: f.bool(),
  doNotSetSniHostname: f.bool(),
  tlsFileSettings: oneof('material', f.message(TlsFileSettings)),
  tlsPemSettings: oneof('material', f.message(TlsPemSettings)),
});
/** Client options toward the source cluster. */
export const ClientOptions = message('ShadowLinkClientOptions', {
  bootstrapServers: f.list(f.string()),
  clientId: f.string(),
  sourceClusterId: f.string(),
  authenticationConfiguration: f.message(AuthenticationConfiguration),
  tlsSettings: optional(f.message(TlsSettings, 'absent when unset')),
  connectionTimeoutMs: f.int32(),
  fetchMaxBytes: f.int32(),
  fetchMinBytes: f.int32(),
  fetchPartitionMaxBytes: f.int32(),
  fetchWaitMaxMs: f.int32(),
  metadataMaxAgeMs: f.int32(),
  retryBackoffMs: f.int32(),
  effectiveConnectionTimeoutMs: f.int32(),
  effectiveFetchMaxBytes: f.int32(),
  effectiveFetchMinBytes: f.int32(),
  effectiveFetchPartitionMaxBytes: f.int32(),
  effectiveFetchWaitMaxMs: f.int32(),
  effectiveMetadataMaxAgeMs: f.int32(),
  effectiveRetryBackoffMs: f.int32(),
});
/** A name filter (groups, roles, auto-created topics). */
export const NameFilter = message('NameFilter', {
  filterType: f.enum(FilterType),
  name: f.string(),
  patternType: f.enum(PatternType),
});
/** ACL access filter. */
export const AclAccessFilter = message('AclAccessFilter', {
  host: f.string(),
  principal: f.string(),
  operation: f.enum(AclOperation),
  permissionType: f.enum(AclPermissionType),
});
/** ACL resource filter. */
export const AclResourceFilter = message('AclResourceFilter', {
  name: f.string(),
  patternType: f.enum(AclPattern),
  resourceType: f.enum(AclResource),
});
/** ACL filter. */
export const AclFilter = message('AclFilter', {
  accessFilter: f.message(AclAccessFilter),
  resourceFilter: f.message(AclResourceFilter),
});
/** Consumer offset sync options. */
export const ConsumerOffsetSyncOptions = message('ConsumerOffsetSyncOptions', {
  groupFilters: f.list(f.message(NameFilter)),
  interval: f.duration(),
  effectiveInterval: f.duration(),
  paused: f.bool(),
});
/** Role sync options. */
export const RoleSyncOptions = message('RoleSyncOptions', {
  roleNameFilters: f.list(f.message(NameFilter)),
  interval: f.duration(),
  effectiveInterval: f.duration(),
  paused: f.bool(),
});
/** Security settings (ACL) sync options. */
export const SecuritySyncOptions = message('SecuritySettingsSyncOptions', {
  aclFilters: f.list(f.message(AclFilter)),
  interval: f.duration(),
  effectiveInterval: f.duration(),
  paused: f.bool(),
});
/** An empty marker message (start at earliest/latest, identity mapping, topic mode). */
export const Empty = message('Empty', {});
/** Topic metadata sync options. */
export const TopicMetadataSyncOptions = message('TopicMetadataSyncOptions', {
  autoCreateShadowTopicFilters: f.list(f.message(NameFilter)),
  interval: f.duration(),
  effectiveInterval: f.duration(),
  paused: f.bool(),
  excludeDefault: f.bool(),
  syncedShadowTopicProperties: f.list(f.string()),
  startAtEarliest: oneof('startOffset', f.message(Empty)),
  startAtLatest: oneof('startOffset', f.message(Empty)),
  startAtTimestamp: oneof('startOffset', f.timestamp()),
});
/** Schema Registry basic authentication; the password is never returned. */
export const SchemaRegistryBasicAuth = message('SchemaRegistryBasicAuth', {
  username: f.string(),
  passwordSet: f.bool(),
  passwordSetAt: f.timestamp(),
});
/** Schema Registry authentication options: one alternative (basic), or none (no authentication). */
export const SchemaRegistryAuthOptions = message('SchemaRegistryAuthOptions', {
  basic: oneof('auth', f.message(SchemaRegistryBasicAuth)),
});
/** Contexts and subjects in scope. */
export const SchemaRegistrySourceFilter = message('SchemaRegistrySourceFilter', {
  contexts: f.list(f.string()),
  subjects: f.list(f.string()),
});
/** A context mapping entry; its fields are not part of the contract (kept as unknown fields). */
export const ContextMapping = message('ContextMapping', {});
/** Exact context mappings. */
export const ExactDestination = message('ExactDestination', {
  mappings: f.list(f.message(ContextMapping)),
});
/** Destination context naming: identity or exact mappings. */
export const SchemaRegistryDestination = message('SchemaRegistryDestination', {
  identity: oneof('destination', f.message(Empty)),
  exact: oneof('destination', f.message(ExactDestination)),
});
/** Replication through the Schema Registry HTTP API. */
export const ShadowSchemaRegistryApi = message('ShadowSchemaRegistryApi', {
  sourceUrl: f.string(),
  authOptions: f.message(SchemaRegistryAuthOptions),
  tlsSettings: optional(f.message(TlsSettings, 'absent when unset')),
  sourceFilter: f.message(SchemaRegistrySourceFilter),
  destination: f.message(SchemaRegistryDestination),
  fullSyncInterval: f.duration(),
  tailInterval: f.duration(),
  maxSourceRequestsPerSecond: f.int32(),
  effectiveFullSyncInterval: f.duration(),
  effectiveTailInterval: f.duration(),
  effectiveMaxSourceRequestsPerSecond: f.int32(),
  paused: f.bool(),
  unsupportedSchemaFeaturePolicy: f.enum(UnsupportedSchemaFeaturePolicy),
});
/** Schema Registry sync: the `_schemas` topic, or the HTTP API. */
export const SchemaRegistrySyncOptions = message('SchemaRegistrySyncOptions', {
  shadowSchemaRegistryTopic: oneof('mode', f.message(Empty)),
  shadowSchemaRegistryApi: oneof('mode', f.message(ShadowSchemaRegistryApi)),
});
/** All configuration groups of a shadow link. */
export const ShadowLinkConfigurations = message('ShadowLinkConfigurations', {
  clientOptions: f.message(ClientOptions),
  topicMetadataSyncOptions: f.message(TopicMetadataSyncOptions),
  consumerOffsetSyncOptions: f.message(ConsumerOffsetSyncOptions),
  securitySyncOptions: f.message(SecuritySyncOptions),
  roleSyncOptions: f.message(RoleSyncOptions),
  schemaRegistrySyncOptions: f.message(SchemaRegistrySyncOptions),
});
/** State of one link task on one broker shard. */
export const TaskStatus = message('ShadowLinkTaskStatus', {
  name: f.string(),
  state: f.enum(TaskState),
  reason: f.string(),
  brokerId: f.int32(),
  shard: f.int32(),
});
/** Schema Registry sync counters. */
export const SyncCounters = message('SchemaRegistrySyncCounters', {
  compatibilityConfigsChanged: f.int64(),
  errors: f.int64(),
  modesChanged: f.int64(),
  subjectVersionsChanged: f.int64(),
  unsupportedFeaturesRemoved: f.int64(),
  startTime: f.timestamp(),
  finishTime: f.timestamp(),
});
/** The running sync. */
export const CurrentSync = message('SchemaRegistryCurrentSync', {
  syncType: f.enum(SchemaRegistrySyncType),
  summary: f.message(SyncCounters),
});
/** Last observed registry inventory. */
export const SchemaRegistryInventory = message('SchemaRegistryInventory', {
  selectedSourceSubjects: f.int64(),
  selectedSourceSubjectVersions: f.int64(),
  destinationSubjects: f.int64(),
  destinationSubjectVersions: f.int64(),
});
/** Schema Registry sync status. */
export const SchemaRegistrySyncStatus = message('SchemaRegistrySyncStatus', {
  currentSync: f.message(CurrentSync),
  lastFullSync: f.message(SyncCounters),
  totalsSinceTaskStart: f.message(SyncCounters),
  inventory: f.message(SchemaRegistryInventory),
  lastErrorMessage: f.string(),
});
/** Status of a shadow link. */
export const ShadowLinkStatus = message('ShadowLinkStatus', {
  state: f.enum(ShadowLinkState),
  shadowTopics: f.list(f.message(ShadowTopic)),
  syncedShadowTopicProperties: f.list(f.string()),
  taskStatuses: f.list(f.message(TaskStatus)),
  schemaRegistrySyncStatus: f.message(SchemaRegistrySyncStatus),
});
/** A shadow link. */
export const ShadowLink = message('ShadowLink', {
  name: f.string(),
  uid: f.string(),
  configurations: f.message(ShadowLinkConfigurations),
  status: f.message(ShadowLinkStatus),
});
/** GetShadowLink request. */
export const GetShadowLinkRequest = message('GetShadowLinkRequest', { name: f.string() });
/** GetShadowLink response. */
export const GetShadowLinkResponse = message('GetShadowLinkResponse', { shadowLink: f.message(ShadowLink) });

/** A decoded shadow link. */
export type ShadowLink = Infer<typeof ShadowLink>;
/** A decoded task status. */
export type TaskStatus = Infer<typeof TaskStatus>;
/** Decoded shadow link configurations. */
export type ShadowLinkConfigurations = Infer<typeof ShadowLinkConfigurations>;
