/** The timeline compares shadow link configurations by value: which fields were absent on the wire is not a change. */
import { describe, expect, it } from 'vitest';
import { ShadowLinkConfigurations } from '../../src/api/schema/shadow-link.ts';
import { decodeMessage } from '../../src/api/wire/decode.ts';
import { flattenValues } from '../../src/report/timeline/detectors/flatten.ts';
import { withoutPresence } from '../helpers/presence.ts';

describe('flattenValues', () => {
  it('gives the same leaves for a configuration with its defaults left out and one with them written', () => {
    const compact = decodeMessage(ShadowLinkConfigurations, { clientOptions: { clientId: 'x' } });
    expect(compact.$absent).toBeDefined();
    expect(compact.clientOptions.$absent).toBeDefined();
    expect([...flattenValues(compact)]).toEqual([...flattenValues(withoutPresence(compact))]);
  });
});
