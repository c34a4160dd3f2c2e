/** The lease keeper asks the store only when it must: the renewal a round can skip, and when it cannot. */
import { describe, expect, it } from 'vitest';
import { LeaseKeeper } from '../../src/collector/lease-keeper.ts';
import type { ClusterLeases, LeaseState } from '../../src/db/poll-record.ts';

const TTL = 30_000;

/** Leases answered by `answer`, counting the calls. */
function fakeLeases(answer: (owner: string, now: number) => LeaseState | Error): ClusterLeases & { asked: number } {
  const leases = {
    asked: 0,
    acquire(_cluster: string, owner: string, now: number) {
      leases.asked++;
      const a = answer(owner, now);
      if (a instanceof Error) throw a;
      return a;
    },
    release() {},
  };
  return leases;
}

const held = (owner: string, now: number): LeaseState => ({ held: true, owner, heartbeatAt: now });

/** Leases held by whoever `holder()` names at the time of asking. */
function heldBy(holder: () => string): ClusterLeases & { asked: number } {
  return fakeLeases((owner, now) =>
    holder() === owner ? held(owner, now) : { held: false, owner: holder(), heartbeatAt: now },
  );
}

function keeper(leases: ClusterLeases, clock: { t: number }, lines: string[] = []): LeaseKeeper {
  return new LeaseKeeper({ leases, owner: 'me', now: () => clock.t, ttlMs: TTL, line: (l) => lines.push(l) });
}

describe('LeaseKeeper', () => {
  it('does not ask again within a third of the TTL of its last renewal, and asks after it', async () => {
    const clock = { t: 1_000_000 };
    const leases = fakeLeases(held);
    const k = keeper(leases, clock);
    expect(await k.hold('c1')).toBe(true);
    for (let i = 0; i < 20; i++) {
      clock.t += 400;
      expect(await k.hold('c1')).toBe(true);
    }
    expect(leases.asked).toBe(1);
    clock.t = 1_000_000 + TTL / 3;
    expect(await k.hold('c1')).toBe(true);
    expect(leases.asked).toBe(2);
  });

  it('always asks for a heartbeat (renew), for each cluster apart, and after the clock went back', async () => {
    const clock = { t: 1_000_000 };
    const leases = fakeLeases(held);
    const k = keeper(leases, clock);
    await k.hold('c1');
    await k.hold('c1', { renew: true });
    expect(leases.asked).toBe(2);
    await k.hold('c2');
    expect(leases.asked).toBe(3);
    clock.t -= 1;
    await k.hold('c1');
    expect(leases.asked).toBe(4);
  });

  it('a standby asks at every round, and notices the take-over at once', async () => {
    const clock = { t: 1_000_000 };
    let holder = 'other';
    const leases = heldBy(() => holder);
    const lines: string[] = [];
    const k = keeper(leases, clock, lines);
    expect(await k.hold('c1')).toBe(false);
    expect(await k.hold('c1')).toBe(false);
    expect(leases.asked).toBe(2);
    holder = 'me';
    expect(await k.hold('c1')).toBe(true);
    expect(lines.at(-1)).toContain('taking over the recording');
  });

  it('after a failure to ask, keeps its role and asks again at the next round', async () => {
    const clock = { t: 1_000_000 };
    let fail = false;
    const leases = fakeLeases((owner, now) => (fail ? new Error('database is locked') : held(owner, now)));
    const lines: string[] = [];
    const k = keeper(leases, clock, lines);
    await k.hold('c1');
    fail = true;
    expect(await k.hold('c1', { renew: true })).toBe(true);
    expect(lines.join('\n')).toContain('cannot renew the recording lease');
    fail = false;
    clock.t += 100;
    await k.hold('c1');
    expect(leases.asked).toBe(3);
  });

  it('a lease lost to another collector is found at the first renewal past a third of the TTL', async () => {
    const clock = { t: 1_000_000 };
    let holder = 'me';
    const leases = heldBy(() => holder);
    const lines: string[] = [];
    const k = keeper(leases, clock, lines);
    expect(await k.hold('c1')).toBe(true);
    holder = 'other'; // this one stalled past the TTL, the other took over
    clock.t += TTL + 1;
    expect(await k.hold('c1')).toBe(false);
    expect(lines.at(-1)).toContain('another collector (other) took over the recording');
    expect(k.standby).toEqual(['c1']);
  });
});
