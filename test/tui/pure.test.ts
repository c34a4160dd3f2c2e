/** Pure helpers of the browser: key names, time input, column layout, connection changes, entity targets. */
import { describe, expect, it } from 'vitest';
import { burstKeys, keyName } from '../../src/tui/input/keys.ts';
import { outsideRecording, parseTimeInput, TimeInputError } from '../../src/tui/time-input.ts';
import { fit, truncate } from '../../src/tui/text.ts';
import { classifyConnections } from '../../src/tui/data/connection-changes.ts';
import { entityFilter, entityTarget, filterString } from '../../src/tui/screens/entity-target.ts';
import { checkFilterText } from '../../src/tui/data/filter-check.ts';
import { exportText, viewSlug } from '../../src/tui/data/export.ts';
import { JsonNumber } from '../../src/api/codec/lossless-json.ts';
import { encodeRow } from '../../src/report/render/json.ts';
import { colourDisabled, pickTheme } from '../../src/tui/theme.ts';
import { helpLines } from '../../src/tui/components/HelpView.tsx';
import { KEYMAP } from '../../src/tui/keymap.ts';
import type { KafkaConnection } from '../../src/api/schema/connection.ts';
import type { PollRow } from '../../src/api/schema/resources.ts';

const S = 1_000_000_000n;
const BASE = 1_767_225_600n * S; // 2026-01-01T00:00:00Z

describe('keys', () => {
  it('names named keys, control keys and text', () => {
    expect(keyName('', { upArrow: true })).toBe('up');
    expect(keyName('', { pageDown: true })).toBe('pgdn');
    expect(keyName('\r', { return: true })).toBe('enter');
    expect(keyName('s', { ctrl: true })).toBe('ctrl+s');
    expect(keyName('G', { shift: true })).toBe('G');
    expect(keyName('', { delete: true })).toBe('backspace');
  });

  it('splits a burst into keys, keeping text runs together for a prompt', () => {
    expect(burstKeys('jj\r', {}, false).map((k) => k.name)).toEqual(['j', 'j', 'enter']);
    expect(burstKeys('abc\r', {}, true)).toEqual([
      { name: 'abc', text: true },
      { name: 'enter', text: false },
    ]);
    expect(burstKeys('\u0013', {}, false).map((k) => k.name)).toEqual(['ctrl+s']);
  });
});

describe('time input', () => {
  // a recording of 00:00 to 00:20 on 2026-01-01 and 2026-01-02 00:00 to 00:05; the wall clock a year later
  const DAY = 86_400n * S;
  const ctx = { first: BASE, latest: BASE + DAY + 300n * S, cursor: BASE + 600n * S, now: BASE + 400n * DAY };
  const on2 = { ...ctx, cursor: BASE + DAY + 120n * S };

  it("reads a time of day as the tables print it, on the cursor's day or the nearest earlier one that has it", () => {
    expect(parseTimeInput('00:04:30', ctx)).toBe(BASE + 270n * S);
    expect(parseTimeInput('00:07', ctx)).toBe(BASE + 420n * S);
    expect(parseTimeInput('00:07:30.5', ctx)).toBe(BASE + 450n * S + 500_000_000n);
    expect(parseTimeInput('00:02:00Z', ctx)).toBe(BASE + 120n * S);
    // the timeline's marks of a cut start are part of what one copies
    expect(parseTimeInput('≤00:02:00', ctx)).toBe(BASE + 120n * S);
    // on the second day, 00:04 is that day's; 00:10 only the first day has (the second ends at 00:05)
    expect(parseTimeInput('00:04', on2)).toBe(BASE + DAY + 240n * S);
    expect(parseTimeInput('00:10', on2)).toBe(BASE + 600n * S);
  });

  it('reads dates, RFC 3339, durations from the cursor, now, latest and first', () => {
    expect(parseTimeInput('2026-01-01T00:05:00Z', ctx)).toBe(BASE + 300n * S);
    expect(parseTimeInput('2026-01-01 00:05:00Z', ctx)).toBe(BASE + 300n * S);
    expect(parseTimeInput('2026-01-01T01:05:00+01:00', ctx)).toBe(BASE + 300n * S);
    expect(parseTimeInput('2026-01-02', ctx)).toBe(BASE + DAY);
    expect(parseTimeInput('2026-01-02 00:03:00', ctx)).toBe(BASE + DAY + 180n * S);
    expect(parseTimeInput('01-02 00:03:00', ctx)).toBe(BASE + DAY + 180n * S);
    expect(parseTimeInput('-5m', ctx)).toBe(ctx.cursor - 300n * S);
    expect(parseTimeInput('5m', ctx)).toBe(ctx.cursor - 300n * S);
    expect(parseTimeInput('+30s', ctx)).toBe(ctx.cursor + 30n * S);
    expect(parseTimeInput('latest', ctx)).toBe(ctx.latest);
    expect(parseTimeInput('first', ctx)).toBe(BASE);
    expect(parseTimeInput('now', ctx)).toBe(ctx.now);
  });

  it('says why it cannot use an input, and where the cursor goes outside the recording', () => {
    expect(() => parseTimeInput('yesterday', ctx)).toThrow(TimeInputError);
    expect(() => parseTimeInput('yesterday', ctx)).toThrow(/cannot read "yesterday" as a time: use 00:04:30/);
    expect(() => parseTimeInput('25:00', ctx)).toThrow(/not a time of day/);
    expect(() => parseTimeInput('2026-13-01', ctx)).toThrow(/not a date/);
    expect(() => parseTimeInput('2026-13-01T00:00:00Z', ctx)).toThrow(TimeInputError);
    expect(() => parseTimeInput('', ctx)).toThrow(/type a time/);
    // a recording that starts at 00:10: no day up to the cursor's has 00:05; the input stays, with the reason
    const late = { ...ctx, first: BASE + 600n * S, cursor: BASE + 900n * S };
    expect(() => parseTimeInput('00:05', late)).toThrow(/00:05 is not recorded on the cursor's day or before/);
    // hostile: too long, absurd durations and dates clamp to what the store represents
    expect(() => parseTimeInput('0'.repeat(10_000), ctx)).toThrow(/too long/);
    expect(parseTimeInput('+99999999d', ctx)).toBe(9_214_646_400n * S - 1n);
    expect(parseTimeInput('9999-01-01', ctx)).toBe(9_214_646_400n * S - 1n);
    expect(outsideRecording(parseTimeInput('9999-01-01', ctx), ctx)).toMatch(
      /after the latest poll: goes to the latest/,
    );
    expect(outsideRecording(BASE - S, ctx)).toMatch(/before the first poll/);
    expect(outsideRecording(BASE + S, ctx)).toBeUndefined();
  });
});

describe('text', () => {
  it('truncates with an ellipsis and pads to a width, or keeps the end a layout chose', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(fit('ab', 4, 'right')).toBe('  ab');
    expect(fit('ab', 4)).toBe('ab  ');
    expect(fit('orders-service-5', 12, 'left', 0)).toBe('…s-service-5');
    expect(fit('shadow-topic/dr-primary/orders', 20, 'left', 'lead')).toBe('…/dr-primary/orders ');
  });
});

describe('connection changes', () => {
  const conn = (uid: string, requests: bigint, state = 'KAFKA_CONNECTION_STATE_OPEN'): KafkaConnection =>
    ({
      uid,
      state,
      closeTime: 0n,
      totalRequestStatistics: { requestCount: requests, fetchBytes: 0n, produceBytes: 0n, produceBatchCount: 0n },
    }) as unknown as KafkaConnection;

  it('classifies new, closed, vanished, moving and idle', () => {
    const prev = [conn('a', 1n), conn('b', 5n), conn('c', 1n), conn('d', 1n)];
    const cur = [conn('a', 2n), conn('b', 5n), conn('c', 1n, 'KAFKA_CONNECTION_STATE_CLOSED'), conn('e', 0n)];
    const { kinds, gone, counts } = classifyConnections(cur, prev);
    // d is no longer listed without a reported close: vanished, not closed (the report's words)
    expect(Object.fromEntries(kinds)).toEqual({ a: 'moving', b: 'idle', c: 'closed', d: 'vanished', e: 'new' });
    expect(counts).toEqual({ new: 1, closed: 1, vanished: 1, expired: 0, moving: 1, idle: 1 });
    expect(gone.map((c) => c.uid)).toEqual(['d']);
    expect(classifyConnections(cur, undefined).kinds.get('e')).toBe('idle');
  });
});

describe('entity targets', () => {
  it('opens the view of an event entity, with a connections filter where it names some', () => {
    expect(entityTarget('shadow-topic/dr/orders', 'shadow.lag-growing')).toEqual({
      kind: 'shadow-topic',
      link: 'dr',
      topic: 'orders',
    });
    expect(entityTarget('task/dr/source_topic_sync/1/0', 'shadow.task-state')).toEqual({
      kind: 'shadow-link',
      link: 'dr',
    });
    expect(entityTarget('broker/2', 'upgrade.member-down')).toEqual({ kind: 'upgrade' });
    expect(entityTarget('broker/2', 'connections.broker-drop')).toEqual({ kind: 'connections' });
    expect(entityTarget('iceberg-catalog/cluster', 'iceberg.catalog-unreachable')).toEqual({ kind: 'iceberg' });
    expect(entityFilter('broker/2')).toBe('node_id = 2');
    expect(entityFilter('principal/User:svc-legacy')).toBe('authentication_info.user_principal = "User:svc-legacy"');
    for (const e of ['client/a"b*', 'group/x\\y', 'listener/in ternal', 'software/librdkafka/2.3.0']) {
      const f = entityFilter(e);
      expect(f).toBeDefined();
      expect(checkFilterText(f as string, 'connections').ok).toBe(true);
    }
    expect(filterString('a"b')).toBe('"a\\"b"');
  });
});

describe('export, theme, help', () => {
  it('writes CSV safely and JSON with int64 values as strings', () => {
    expect(
      exportText({
        format: 'csv',
        header: ['A', 'B'],
        rows: [
          ['1', 'x,y'],
          ['=cmd', 'z'],
        ],
      }),
    ).toBe('A,B\r\n1,"x,y"\r\n\'=cmd,z\r\n');
    expect(exportText({ format: 'json', data: { n: 12345678901234567890n } })).toContain('"12345678901234567890"');
    expect(viewSlug({ kind: 'shadow-topic', link: 'dr', topic: 'a/b' })).toBe('shadow-topic-dr-a_b');
  });

  it('writes API rows in the API JSON form: fields absent on the wire stay absent, literals kept as sent', () => {
    const row = { name: 'dr', uid: '', $absent: ['uid'] };
    const text = exportText({
      format: 'json',
      data: { link: encodeRow('shadow-links', row), n: new JsonNumber('1e400'), gone: undefined },
    });
    expect(text).not.toContain('$absent');
    expect(text).not.toContain('"uid"');
    expect(text).toContain('"name": "dr"');
    expect(text).toContain('"n": 1e400');
    expect(text).not.toContain('gone');
  });

  it('honours NO_COLOR: no colour in the plain theme, emphasis kept', () => {
    expect(colourDisabled({ NO_COLOR: '1' })).toBe(true);
    expect(colourDisabled({ NO_COLOR: '' })).toBe(false);
    const plainTheme = pickTheme({ noColor: true });
    expect(Object.values(plainTheme).every((s) => s.color === undefined && s.dimColor !== true)).toBe(true);
    expect(plainTheme.selected.inverse).toBe(true);
  });

  it('lists every binding of a view from the keymap in its help', () => {
    const text = helpLines('connections')
      .map((l) => l.map((s) => s.text).join(''))
      .join('\n');
    for (const b of KEYMAP.filter((x) => x.views === undefined || x.views.includes('connections'))) {
      expect(text).toContain(b.keys[0] === ' ' ? 'space' : b.keys[0]);
    }
    expect(text).toContain('counters moving');
    expect(
      helpLines('overview')
        .map((l) => l.map((s) => s.text).join(''))
        .join('\n'),
    ).not.toContain('filter rows');
  });
});

describe('fitting 80 columns', () => {
  it('keeps ? help and q quit at the end of the footer whatever the width', async () => {
    const { footerKeys } = await import('../../src/tui/components/Footer.tsx');
    for (const width of [40, 60, 80, 200]) {
      const keys = footerKeys('connections', width);
      expect(keys.length, String(width)).toBeLessThanOrEqual(width);
      expect(keys.endsWith('? help  q quit'), keys).toBe(true);
    }
    expect(footerKeys('connections', 200)).toMatch(/^Enter open {2}Esc back/);
  });

  it('wraps help texts under their first line instead of cutting them', async () => {
    const { wrapText } = await import('../../src/tui/components/HelpView.tsx');
    expect(wrapText('go to a time, as on the command line', 12)).toEqual([
      'go to a',
      'time, as on',
      'the command',
      'line',
    ]);
    const text = helpLines('timeline', 40).map((l) => l.map((s) => s.text).join(''));
    for (const l of text) expect(Array.from(l).length, l).toBeLessThanOrEqual(40);
    expect(text.join(' ')).toMatch(/RFC\s+3339/);
    expect(text.join('\n')).not.toContain('…');
  });

  it('holds the last observed lag in slices without a poll (no gaps in the sparkline)', async () => {
    const { holdLast } = await import('../../src/tui/data/histories.ts');
    expect(holdLast([Number.NaN, 1, Number.NaN, Number.NaN, 3, Number.NaN])).toEqual([Number.NaN, 1, 1, 1, 3, 3]);
  });

  it('draws every partition of a topic on the same columns: one first seen later starts later', async () => {
    const { partitionLagSparks } = await import('../../src/tui/data/histories.ts');
    const t0 = 1_767_225_600_000_000_000n;
    // only the poll's times are read
    const poll = (i: number): PollRow => {
      const times: Partial<PollRow> = { startTime: t0 + BigInt(i) * 30_000_000_000n, scheduledTime: 0n };
      return times as PollRow;
    };
    const row = (partitionId: number, lag: number) => ({
      shadowLinkName: 'l',
      topicName: 't',
      partitionId,
      lag: BigInt(lag),
    });
    const samples = [];
    for (let i = 0; i < 6; i++) {
      samples.push({ poll: poll(i), row: row(0, 10 * (i + 1)) });
      // partition 1 appears at the fourth poll
      if (i >= 3) samples.push({ poll: poll(i), row: row(1, 60) });
    }
    const sparks = partitionLagSparks(samples, 'l', 't', t0, t0 + 150_000_000_000n);
    expect(sparks.get('0')).toBe('▂▃▅▆▇█ 60');
    // before: '███ 60', as if it had lagged since the first poll
    expect(sparks.get('1')).toBe('   ███ 60');
  });

  it('shrinks times to what differs between rows', async () => {
    const { compactTimeFormat } = await import('../../src/tui/time-format.ts');
    const day = 1_767_225_600_000_000_000n;
    const H = 3_600_000_000_000n;
    expect(compactTimeFormat([day + H, day + 2n * H])(day + H + 690_000_000_000n)).toBe('01:11:30');
    expect(compactTimeFormat([day, day + 30n * H])(day + 30n * H)).toBe('01-02 06:00:00');
    expect(compactTimeFormat([day, day + 400n * 24n * H])(day)).toBe('2026-01-01 00:00:00');
  });
});

describe('the header within the width', () => {
  const base = {
    cluster: 'sim',
    database: 'demo.db',
    at: BASE + 1_500n * S,
    index: 50,
    count: 51,
    freshness: 'latest poll 338d13h ago',
    stale: 'STALE: GetIcebergStatus 338d13h old (every 60s) +5 more',
    follow: false,
    marks: { a: BASE + 600n * S, b: BASE + 720n * S },
    crumbs: [
      { kind: 'overview' as const },
      { kind: 'timeline' as const },
      { kind: 'event' as const, key: 'connections.auth-failures\u0000listener/external\u00001' },
      { kind: 'connections' as const },
    ],
    filter: 'listener_name = "external" AND authentication_info.state = FAILURE',
    badge: 'shown 150 of 1,713',
    width: 80,
    theme: pickTheme({ noColor: true }),
  };
  const line = (segs: readonly { text: string }[]): string => segs.map((x) => x.text).join('');

  it('keeps the stale marker and the diff marks whole, giving up the freshness and the poll count first', async () => {
    const { secondLine } = await import('../../src/tui/components/Header.tsx');
    const l = line(secondLine(base));
    expect(Array.from(l).length).toBeLessThanOrEqual(80);
    expect(l).toContain('⚠ STALE');
    expect(l).toContain('mark A 00:10:00Z B 00:12:00Z');
    expect(line(secondLine({ ...base, width: 200 }))).toContain('latest poll 338d13h ago');
  });

  it('keeps the view shown and the count of rows in the breadcrumbs, the filter in the status line', async () => {
    const { crumbLine } = await import('../../src/tui/components/Header.tsx');
    const l = line(crumbLine(base));
    expect(Array.from(l).length).toBeLessThanOrEqual(80);
    expect(l).toMatch(/› connections {3}\[shown 150 of 1,713\]$/);
    expect(line(crumbLine({ ...base, width: 300 }))).toContain('filter: listener_name');
  });
});
