/** Every enum of the six operations, in spec order (numeric value = position). */
import { enumTable } from './enum-table.ts';

/** Connection authentication mechanism. */
export const AuthenticationMechanism = enumTable('AuthenticationMechanism', 'AUTHENTICATION_MECHANISM_', [
  'UNSPECIFIED',
  'MTLS',
  'SASL_SCRAM',
  'SASL_OAUTHBEARER',
  'SASL_PLAIN',
  'SASL_GSSAPI',
]);
/** Connection authentication state. */
export const AuthenticationState = enumTable('AuthenticationState', 'AUTHENTICATION_STATE_', [
  'UNSPECIFIED',
  'UNAUTHENTICATED',
  'SUCCESS',
  'FAILURE',
]);
/** Kafka connection lifecycle state. */
export const KafkaConnectionState = enumTable('KafkaConnectionState', 'KAFKA_CONNECTION_STATE_', [
  'UNSPECIFIED',
  'OPEN',
  'ABORTING',
  'CLOSED',
]);
/** Shadow topic state. */
export const ShadowTopicState = enumTable('ShadowTopicState', 'SHADOW_TOPIC_STATE_', [
  'UNSPECIFIED',
  'ACTIVE',
  'FAULTED',
  'PAUSED',
  'FAILING_OVER',
  'FAILED_OVER',
  'PROMOTING',
  'PROMOTED',
]);
/** Upgrade finalization state. */
export const FinalizationState = enumTable('FinalizationState', 'FINALIZATION_STATE_', [
  'UNSPECIFIED',
  'FINALIZED',
  'READY_TO_FINALIZE',
  'UPGRADE_IN_PROGRESS',
]);
/** Iceberg topic lifecycle state. */
export const IcebergLifecycleState = enumTable('IcebergLifecycleState', 'ICEBERG_LIFECYCLE_STATE_', [
  'UNSPECIFIED',
  'LIVE',
  'CLOSED',
  'PURGED',
]);
/** SCRAM mechanism of a shadow link's source credentials. */
export const ScramMechanism = enumTable('ScramMechanism', 'SCRAM_MECHANISM_', [
  'UNSPECIFIED',
  'SCRAM_SHA_256',
  'SCRAM_SHA_512',
]);
/** Include or exclude, for name filters. */
export const FilterType = enumTable('FilterType', 'FILTER_TYPE_', ['UNSPECIFIED', 'INCLUDE', 'EXCLUDE']);
/** Name filter pattern type; PREFIXED is an alias of PREFIX (same value 2), the server writes PREFIX. */
export const PatternType = enumTable('PatternType', 'PATTERN_TYPE_', ['UNSPECIFIED', 'LITERAL', 'PREFIX'], {
  PATTERN_TYPE_PREFIXED: 'PATTERN_TYPE_PREFIX',
});
/** ACL operation. */
export const AclOperation = enumTable('AclOperation', 'ACL_OPERATION_', [
  'UNSPECIFIED',
  'ANY',
  'READ',
  'WRITE',
  'CREATE',
  'REMOVE',
  'ALTER',
  'DESCRIBE',
  'CLUSTER_ACTION',
  'DESCRIBE_CONFIGS',
  'ALTER_CONFIGS',
  'IDEMPOTENT_WRITE',
]);
/** ACL permission type. */
export const AclPermissionType = enumTable('AclPermissionType', 'ACL_PERMISSION_TYPE_', [
  'UNSPECIFIED',
  'ANY',
  'ALLOW',
  'DENY',
]);
/** ACL resource pattern type. */
export const AclPattern = enumTable('AclPattern', 'ACL_PATTERN_', [
  'UNSPECIFIED',
  'ANY',
  'LITERAL',
  'PREFIXED',
  'PREFIX',
  'MATCH',
]);
/** ACL resource type. */
export const AclResource = enumTable('AclResource', 'ACL_RESOURCE_', [
  'UNSPECIFIED',
  'ANY',
  'CLUSTER',
  'GROUP',
  'TOPIC',
  'TXN_ID',
  'SR_SUBJECT',
  'SR_REGISTRY',
  'SR_ANY',
]);
/** Policy for schema features the destination registry lacks. */
export const UnsupportedSchemaFeaturePolicy = enumTable(
  'UnsupportedSchemaFeaturePolicy',
  'UNSUPPORTED_SCHEMA_FEATURE_POLICY_',
  ['UNSPECIFIED', 'FAIL', 'REMOVE'],
);
/** Shadow link state. */
export const ShadowLinkState = enumTable('ShadowLinkState', 'SHADOW_LINK_STATE_', ['UNSPECIFIED', 'ACTIVE', 'PAUSED']);
/** Shadow link task state. */
export const TaskState = enumTable('TaskState', 'TASK_STATE_', [
  'UNSPECIFIED',
  'ACTIVE',
  'PAUSED',
  'LINK_UNAVAILABLE',
  'NOT_RUNNING',
  'FAULTED',
]);
/** Kind of a running schema registry sync. */
export const SchemaRegistrySyncType = enumTable('SchemaRegistrySyncType', 'SCHEMA_REGISTRY_SYNC_TYPE_', [
  'UNSPECIFIED',
  'FULL',
  'TAIL',
]);

/** All enum tables, for tests and docs. */
export const ALL_ENUMS = [
  AuthenticationMechanism,
  AuthenticationState,
  KafkaConnectionState,
  ShadowTopicState,
  FinalizationState,
  IcebergLifecycleState,
  ScramMechanism,
  FilterType,
  PatternType,
  AclOperation,
  AclPermissionType,
  AclPattern,
  AclResource,
  UnsupportedSchemaFeaturePolicy,
  ShadowLinkState,
  TaskState,
  SchemaRegistrySyncType,
] as const;
