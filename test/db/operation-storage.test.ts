/**
 * One storage descriptor per operation (src/db/schema/operation-storage.ts): the compiler demands an
 * entry for every operation, and the descriptors agree with the per-poll tables and with the
 * resources of src/api (a resource's table is written by every operation that carries it).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { OPERATION_NAMES } from '../../src/api/schema/operations.ts';
import { RESOURCES, RESOURCE_NAMES } from '../../src/api/schema/resources.ts';
import {
  OPERATION_STORAGE,
  storedIn,
  type OperationStorage,
  type OperationStorageTable,
} from '../../src/db/schema/operation-storage.ts';
import { PER_POLL_TABLE_LIST, sampleTableOf } from '../../src/db/schema/per-poll-tables.ts';

const storage = (tables: OperationStorage['tables']): OperationStorage => ({ tables, shared: [] });

describe('storage descriptors per operation', () => {
  it('a missing operation fails to compile', () => {
    // @ts-expect-error -- GetIcebergStatus has no entry: the record over every operation is incomplete
    const incomplete: OperationStorageTable = {
      ListKafkaConnections: storage(['conn_frame']),
      GetShadowLink: storage(['link_sample']),
      ListShadowTopics: storage(['shadow_topic_sample']),
      GetShadowTopic: storage(['shadow_topic_sample']),
      GetUpgradeStatus: storage(['upgrade_sample']),
    };
    expect(Object.keys(incomplete)).toHaveLength(OPERATION_NAMES.length - 1);
    expectTypeOf(OPERATION_STORAGE).toEqualTypeOf<OperationStorageTable>();
  });

  it('an unknown table fails to compile', () => {
    // @ts-expect-error -- not a per-poll table
    expect(storage(['no_such_sample']).tables).toHaveLength(1);
  });

  it('every per-poll table but the raw bodies is written by an operation', () => {
    const written = new Set(OPERATION_NAMES.flatMap((op) => OPERATION_STORAGE[op].tables));
    expect(PER_POLL_TABLE_LIST.map((t) => t.table).filter((t) => !written.has(t))).toEqual(['poll_raw']);
  });

  it('a resource’s table is written by every operation that carries the resource', () => {
    for (const name of RESOURCE_NAMES) {
      const table = sampleTableOf(name);
      if (table === undefined) continue;
      for (const op of RESOURCES[name].operations)
        expect(OPERATION_STORAGE[op].tables, `${name} of ${op}`).toContain(table);
    }
  });

  it('names the tables of a damaged answer', () => {
    expect(storedIn('GetUpgradeStatus')).toBe('upgrade_sample, upgrade_member_sample or poll');
  });
});
