import { describe, expect, it } from 'vitest';
import { OPERATION_NAMES, type OperationName, type RequestOf } from '../../src/api/schema/operations.ts';
import { operationCodecs } from '../../src/api/wire/answers.ts';
import { createWorld, isSimError, SimError, type SimHandlers } from '../../src/sim/index.ts';

const refuse = (): SimError => new SimError('unimplemented', 'not simulated');

/** One valid request per operation (the mapped type makes this table complete too). */
const REQUESTS: { [N in OperationName]: RequestOf<N> } = {
  ListKafkaConnections: { filter: '', orderBy: '', pageSize: 10 },
  GetShadowLink: { name: 'dr-primary' },
  ListShadowTopics: { shadowLinkName: 'dr-primary' },
  GetShadowTopic: { name: 'orders', shadowLinkName: 'dr-primary' },
  GetUpgradeStatus: {},
  GetIcebergStatus: { topicsFilter: [] },
};

describe('simulator handlers', () => {
  it("a handler table missing one operation, or answering with another operation's type, does not compile", () => {
    // Checked by `npm run typecheck`: each @ts-expect-error fails the type check when its line compiles.
    // @ts-expect-error GetIcebergStatus has no handler
    const missing: SimHandlers = {
      ListKafkaConnections: refuse,
      GetShadowLink: refuse,
      ListShadowTopics: refuse,
      GetShadowTopic: refuse,
      GetUpgradeStatus: refuse,
    };
    const wrong: SimHandlers = {
      ...missing,
      // @ts-expect-error an upgrade status is not an Iceberg status
      GetIcebergStatus: () => createWorld({ seed: 1 }).getUpgradeStatus(),
    };
    const complete: SimHandlers = { ...missing, GetIcebergStatus: refuse };
    expect(Object.keys(complete).sort()).toEqual([...OPERATION_NAMES].sort());
    expect(Object.keys(wrong).sort()).toEqual([...OPERATION_NAMES].sort());
  });

  it('the world answers every operation with a schema-valid answer', () => {
    const world = createWorld({ seed: 3, connections: 20 });
    const answerOf = <N extends OperationName>(op: N): string => {
      const value = world.answer(op, REQUESTS[op]);
      if (isSimError(value)) throw new Error(`${op}: ${value.code} ${value.message}`);
      const text = operationCodecs[op].encodeAnswer(value);
      expect(operationCodecs[op].parseAnswer(text)).toEqual(value);
      return text;
    };
    for (const op of OPERATION_NAMES) expect(answerOf(op).startsWith('{')).toBe(true);
  });
});
