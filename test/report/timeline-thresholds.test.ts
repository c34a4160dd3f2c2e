/** Thresholds: defaults, partial overrides from the config file, and errors that name the key. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_THRESHOLDS, ThresholdError } from '../../src/report/timeline/thresholds.ts';
import { resolveThresholds } from '../../src/report/timeline/thresholds-schema.ts';

const S = 1_000_000_000n;

describe('resolveThresholds', () => {
  it('gives the defaults for nothing, null or an empty mapping', () => {
    expect(resolveThresholds()).toEqual(DEFAULT_THRESHOLDS);
    expect(resolveThresholds(null)).toEqual(DEFAULT_THRESHOLDS);
    expect(resolveThresholds({})).toEqual(DEFAULT_THRESHOLDS);
  });

  it('merges a partial set over the defaults, durations as text', () => {
    const t = resolveThresholds({
      warmup: '1h',
      connections: { stormMinOpens: 100, groupIdle: '2m' },
      shadow: { lagRecords: 5000 },
      iceberg: { commitStall: '1d' },
    });
    expect(t.warmup).toBe(3600n * S);
    expect(t.connections.stormMinOpens).toBe(100);
    expect(t.connections.groupIdle).toBe(120n * S);
    expect(t.connections.stormFactor).toBe(DEFAULT_THRESHOLDS.connections.stormFactor);
    expect(t.shadow.lagRecords).toBe(5000n);
    expect(t.shadow.sourceStale).toBe(DEFAULT_THRESHOLDS.shadow.sourceStale);
    expect(t.iceberg.commitStall).toBe(86_400n * S);
    // the defaults are not changed by a merge
    expect(DEFAULT_THRESHOLDS.connections.stormMinOpens).toBe(30);
  });

  it('accepts records as numbers or decimal strings beyond 2^53', () => {
    expect(resolveThresholds({ iceberg: { commitLag: '9007199254740993' } }).iceberg.commitLag).toBe(9007199254740993n);
  });

  it.each([
    [{ conections: {} }, 'conections', 'unknown key'],
    [{ connections: { stormMinOpen: 3 } }, 'connections.stormMinOpen', 'unknown key'],
    [{ connections: { stormMinOpens: 0 } }, 'connections.stormMinOpens', 'at least 1'],
    [{ connections: { stormMinOpens: 2.5 } }, 'connections.stormMinOpens', 'whole number'],
    [{ connections: { stormFactor: 1 } }, 'connections.stormFactor', 'greater than 1'],
    [{ connections: { groupIdle: 60 } }, 'connections.groupIdle', 'duration'],
    [{ connections: { groupIdle: '5 minutes' } }, 'connections.groupIdle', 'invalid duration'],
    [{ shadow: { sourceStale: '0s' } }, 'shadow.sourceStale', 'greater than zero'],
    [{ shadow: { lagRecords: -1 } }, 'shadow.lagRecords', 'whole number'],
    [{ shadow: 3 }, 'shadow', 'mapping'],
  ])('rejects %j naming %s', (input, key, reason) => {
    let err: unknown;
    try {
      resolveThresholds(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ThresholdError);
    expect((err as ThresholdError).key).toBe(key);
    expect((err as Error).message).toContain(`thresholds.${key}`);
    expect((err as Error).message).toContain(reason);
  });

  it('changes what the detectors report', async () => {
    const { loadCase } = await import('../fixtures/timeline/cases.ts');
    const { memorySource } = await import('../../src/report/timeline/memory-source.ts');
    const { buildTimeline } = await import('../../src/report/timeline/timeline.ts');
    const c = loadCase(new URL('../fixtures/timeline/cases/stuck-requests-and-brokers.yaml', import.meta.url).pathname);
    const kinds = (th: unknown) =>
      buildTimeline(memorySource(c.polls), { thresholds: resolveThresholds(th) }).events.map((e) => e.kind);
    expect(kinds({})).toContain('connections.stuck-requests');
    expect(kinds({ connections: { inFlightStuck: '1m' } })).not.toContain('connections.stuck-requests');
    // broker 3 had two connections: an empty broker counts from five by default
    expect(kinds({})).not.toContain('connections.broker-empty');
    expect(kinds({ connections: { brokerMinConnections: 2 } })).toContain('connections.broker-empty');
  });
});

describe('threshold messages', () => {
  it.each([
    [3, 'thresholds: must be a mapping (key: value)'],
    [{ iceberg: { commitLag: 'many' } }, 'thresholds.iceberg.commitLag: must be a whole number of records (0 or more)'],
    [{ warmup: '1 hour' }, 'thresholds.warmup: invalid duration "1 hour": use a number with a unit (ms, s, m, h, d)'],
    [{ collection: { gapFactor: 2, gap: 3 } }, 'thresholds.collection.gap: unknown key (expected one of: gapFactor)'],
  ])('%j: %s', (input, message) => {
    expect(() => resolveThresholds(input)).toThrow(message);
  });
});
