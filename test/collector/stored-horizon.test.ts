/** The time before which every poll of a cluster is stored, as the collector's onStored hook gives it. */
import { describe, expect, it } from 'vitest';
import { StoredHorizon } from '../../src/collector/stored-horizon.ts';

describe('StoredHorizon', () => {
  it('is now when no other round of the cluster runs', () => {
    const h = new StoredHorizon();
    const a = h.begin('c', 10n);
    expect(h.end(a, 20n, 25n)).toBe(25n);
  });

  it('stops at the beginning of a round still running, and of a finished round that straddles it', () => {
    const h = new StoredHorizon();
    const conns = h.begin('c', 10n); // a long connections round
    const topics = h.begin('c', 12n); // a shadow round starting meanwhile, sharing the call queue
    const other = h.begin('d', 11n); // another cluster does not count
    // the shadow round ends first: the connections round still runs from 10
    expect(h.end(topics, 15n, 16n)).toBe(10n);
    // the connections round ends: nothing runs, everything up to now is stored
    expect(h.end(conns, 30n, 31n)).toBe(31n);
    const late = h.begin('c', 40n);
    const early = h.begin('c', 35n);
    // `early` ended after `late` began: polls of `early` up to 50 would be cut at 40; the horizon moves to 35
    expect(h.end(early, 50n, 51n)).toBe(35n);
    expect(h.end(late, 60n, 61n)).toBe(61n);
    expect(h.end(other, 20n, 62n)).toBe(62n);
  });

  it('forgets a round that stored nothing', () => {
    const h = new StoredHorizon();
    const standby = h.begin('c', 5n);
    const next = h.begin('c', 8n);
    h.drop(standby);
    expect(h.end(next, 9n, 10n)).toBe(10n);
  });
});
