import { describe, expect, it } from 'vitest';
import { ALL_ENUMS, PatternType, KafkaConnectionState, AclPattern } from '../../src/api/schema/enums.ts';
import { canonicalEnumName, enumNameOf, enumNumber, shortEnumName } from '../../src/api/schema/enum-table.ts';

describe('enum tables', () => {
  it.each(ALL_ENUMS.map((e) => [e.typeName, e] as const))('%s: UNSPECIFIED first, prefixed, unique', (_n, table) => {
    expect(table.values[0]).toBe(`${table.prefix}UNSPECIFIED`);
    expect(new Set(table.values).size).toBe(table.values.length);
    table.values.forEach((v, i) => {
      expect(v.startsWith(table.prefix)).toBe(true);
      expect(enumNumber(table, v)).toBe(i);
      expect(enumNameOf(table, i)).toBe(v);
    });
  });

  it('numbers connection states in spec order', () => {
    expect(KafkaConnectionState.values).toEqual([
      'KAFKA_CONNECTION_STATE_UNSPECIFIED',
      'KAFKA_CONNECTION_STATE_OPEN',
      'KAFKA_CONNECTION_STATE_ABORTING',
      'KAFKA_CONNECTION_STATE_CLOSED',
    ]);
  });

  it('treats PATTERN_TYPE_PREFIXED as an alias of PREFIX (value 2), and only there', () => {
    expect(enumNumber(PatternType, 'PATTERN_TYPE_PREFIXED')).toBe(2);
    expect(enumNumber(PatternType, 'PATTERN_TYPE_PREFIX')).toBe(2);
    expect(canonicalEnumName(PatternType, 'PATTERN_TYPE_PREFIXED')).toBe('PATTERN_TYPE_PREFIX');
    expect(enumNumber(AclPattern, 'ACL_PATTERN_PREFIXED')).toBe(3);
    expect(enumNumber(AclPattern, 'ACL_PATTERN_PREFIX')).toBe(4);
  });

  it('reports unknown names as -1 and shortens names for display', () => {
    expect(enumNumber(KafkaConnectionState, 'KAFKA_CONNECTION_STATE_EXPLODED')).toBe(-1);
    expect(shortEnumName(KafkaConnectionState, 'KAFKA_CONNECTION_STATE_OPEN')).toBe('OPEN');
  });

  it('covers every enum of the spec', () => {
    expect(ALL_ENUMS.map((e) => e.prefix).sort()).toEqual(
      [
        'ACL_OPERATION_',
        'ACL_PATTERN_',
        'ACL_PERMISSION_TYPE_',
        'ACL_RESOURCE_',
        'AUTHENTICATION_MECHANISM_',
        'AUTHENTICATION_STATE_',
        'FILTER_TYPE_',
        'FINALIZATION_STATE_',
        'ICEBERG_LIFECYCLE_STATE_',
        'KAFKA_CONNECTION_STATE_',
        'PATTERN_TYPE_',
        'SCHEMA_REGISTRY_SYNC_TYPE_',
        'SCRAM_MECHANISM_',
        'SHADOW_LINK_STATE_',
        'SHADOW_TOPIC_STATE_',
        'TASK_STATE_',
        'UNSUPPORTED_SCHEMA_FEATURE_POLICY_',
      ].sort(),
    );
  });
});
