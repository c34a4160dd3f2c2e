/** The one layout rule of every table (src/report/columns/layout.ts): what gives way first when a table does not fit. */
import { describe, expect, it } from 'vitest';
import { elide, layoutTable, type LayoutSpec } from '../../src/report/columns/layout.ts';

const GAP = 2;
const room = (fits: readonly { width: number }[]): number =>
  fits.reduce((a, f) => a + f.width, 0) + GAP * Math.max(0, fits.filter((f) => f.width > 0).length - 1);
/** The cells as drawn: each value elided as its column's fit says. */
const drawn = (rows: readonly (readonly string[])[], fits: ReturnType<typeof layoutTable>, j: number): string[] =>
  rows.map((r) => elide(r[j] ?? '', fits[j]!.width, fits[j]!.elision));

describe('elide', () => {
  it('cuts at the end by default, or keeps the distinguishing end', () => {
    expect(elide('orders-service-5', 10)).toBe('orders-se…');
    expect(elide('orders-service-5', 10, 0)).toBe('…service-5');
    expect(elide('orders-service-5', 10, 3)).toBe('ord…vice-5');
    expect(elide('shadow-topic/dr-primary/payments', 22, 'lead')).toBe('…/dr-primary/payments');
    expect(elide('task/analytics-mirror/role_sync/0/1', 20, 'first')).toBe('task/…/role_sync/0/1');
    expect(elide('short', 10, 'lead')).toBe('short');
    expect(elide('anything', 0)).toBe('');
  });

  it('counts wide characters as two columns when told so', () => {
    const wide = (ch: string): number => (/[\u4e00-\u9fff]/.test(ch) ? 2 : 1);
    expect(elide('漢字漢字abc', 6, undefined, wide)).toBe('漢字…');
    expect(elide('abc漢字漢字', 6, 0, wide)).toBe('…漢字');
  });
});

describe('layoutTable', () => {
  const text = (header: string, extra: Partial<LayoutSpec> = {}): LayoutSpec => ({ header, align: 'left', ...extra });
  const num = (header: string, extra: Partial<LayoutSpec> = {}): LayoutSpec => ({ header, align: 'right', ...extra });

  it('gives every column its natural width when the table fits', () => {
    const fits = layoutTable(
      [text('NAME'), num('N')],
      [
        ['alpha', '1'],
        ['beta', '22'],
      ],
      80,
    );
    expect(fits.map((f) => f.width)).toEqual([5, 2]);
  });

  it('drops the columns that hold one value on every row before it cuts a column that tells rows apart', () => {
    const specs = [
      text('UID', { identity: true, min: 9, priority: 1 }),
      text('CLIENT ID', { priority: 1, min: 12 }),
      text('STATE', { priority: 1 }),
      text('GROUP', { priority: 3 }),
      num('FETCH/S'),
    ];
    const rows = Array.from({ length: 16 }, (_, i) => [
      `3da6913${i.toString(16)}-5193-4078-a768-c0d1e2f3a4b5`,
      `orders-service-${i % 8}`,
      'OPEN',
      '-',
      '0 B/s',
    ]);
    const fits = layoutTable(specs, rows, 60);
    expect(room(fits)).toBeLessThanOrEqual(60);
    // the client ids stay whole; GROUP and FETCH/S drop out and say what they held
    expect(fits[1]!.width).toBe('orders-service-0'.length);
    expect(fits[3]).toEqual({ width: 0, same: '-' });
    expect(fits[4]).toEqual({ width: 0, same: '0 B/s' });
    // every row's uid still reads apart
    expect(new Set(drawn(rows, fits, 0)).size).toBe(16);
  });

  it('lets less important text give way before an important column of one value drops', () => {
    const specs = [
      text('NAME', { identity: true, priority: 1 }),
      text('STATE', { priority: 1 }),
      text('BOOTSTRAP', { priority: 3, min: 12 }),
    ];
    const rows = [
      ['dr-primary', 'ACTIVE', 'kafka-0.east.source.example.com:9092 +2'],
      ['analytics-mirror', 'ACTIVE', 'kafka-0.west.source.example.com:9092 +2'],
    ];
    const fits = layoutTable(specs, rows, 50);
    expect(fits[1]!.width).toBe(6);
    expect(fits[2]!.width).toBeLessThan(39);
    expect(new Set(drawn(rows, fits, 2)).size).toBe(2);
  });

  it('shows the distinguishing end of names that share a prefix, never two rows alike', () => {
    const entities = ['customers', 'inventory', 'orders', 'payments'].map((t) => `shadow-topic/dr-primary/${t}`);
    const specs = [
      text('ENTITY', { identity: true, keep: true, min: 14 }),
      text('DESCRIPTION', { fill: true, keep: true, min: 14 }),
    ];
    const rows = entities.map((e) => [
      e,
      `shadow topic ${e.split('/')[2]} of dr-primary: lag growing for 4m and counting`,
    ]);
    const fits = layoutTable(specs, rows, 40);
    const shown = drawn(rows, fits, 0);
    expect(new Set(shown).size).toBe(4);
    for (const s of shown) expect(s).toMatch(/(customers|inventory|orders|payments)$/);
    // the description is there, cut at its end (it reads from its start)
    expect(fits[1]!.width).toBeGreaterThanOrEqual(14);
    expect(fits[1]!.elision).toBeUndefined();
  });

  it('keeps the identity and the description on a narrow terminal, dropping the least important instead', () => {
    const specs = [
      text('TIME', { flexible: false, priority: 1 }),
      text('SEV', { priority: 3 }),
      text('KIND', { priority: 1, min: 16 }),
      text('ENTITY', { identity: true, keep: true, priority: 1, min: 14 }),
      num('FOR'),
      text('DESCRIPTION', { fill: true, keep: true, min: 14 }),
    ];
    const rows = Array.from({ length: 12 }, (_, i) => [
      `00:0${i % 10}:00`,
      i % 2 === 0 ? 'warn' : 'error',
      i % 3 === 0 ? 'shadow.lag-growing' : 'connections.auth-failures',
      `task/${i % 2 === 0 ? 'analytics-mirror' : 'dr-primary'}/source_topic_sync/${i % 3}/${i % 4}`,
      'ongoing 3m',
      'a long description of what happened, with the names and the numbers of the evidence in it',
    ]);
    const fits = layoutTable(specs, rows, 64);
    expect(room(fits)).toBeLessThanOrEqual(64);
    expect(fits[3]!.width).toBeGreaterThan(0);
    expect(fits[5]!.width).toBeGreaterThanOrEqual(14);
    expect(fits[1]!.width).toBe(0); // SEV went first
    expect(new Set(drawn(rows, fits, 3)).size).toBe(new Set(rows.map((r) => r[3])).size);
  });

  it('gives the width a rare long name does not need to the description', () => {
    const specs = [
      text('ENTITY', { identity: true, keep: true }),
      text('DESCRIPTION', { fill: true, keep: true, min: 14 }),
    ];
    const rows = Array.from({ length: 20 }, (_, i) => [
      i === 0 ? 'task/analytics-mirror/consumer_offset_sync/2/3' : `broker/${i}`,
      `description ${i} `.repeat(20),
    ]);
    const fits = layoutTable(specs, rows, 100);
    expect(fits[0]!.width).toBeLessThan(46);
    expect(fits[1]!.width).toBe(100 - GAP - fits[0]!.width);
  });

  it('in text output only shrinks: no column drops, numbers are never cut', () => {
    const specs = [text('NAME'), num('BYTES'), text('NOTE')];
    const rows = [
      ['a-very-long-client-identifier', '12345678', 'a note that is long too'],
      ['b', '1', 'x'],
    ];
    const fits = layoutTable(specs, rows, 20, { drop: false, defaultMin: 6 });
    expect(fits.every((f) => f.width > 0)).toBe(true);
    expect(fits[1]!.width).toBe(8);
  });

  it('stays bounded on hostile tables: many rows, huge cells, a tiny width, no columns', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => [`${'x'.repeat(2_000)}${i}`, String(i), 'same']);
    const started = performance.now();
    const fits = layoutTable([text('A', { identity: true }), num('N'), text('C')], rows, 60);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(room(fits)).toBeLessThanOrEqual(60);
    expect(layoutTable([], [], 80)).toEqual([]);
    const tiny = layoutTable([text('NAME'), num('COUNT')], [['abcdef', '123456']], 10);
    expect(room(tiny)).toBeLessThanOrEqual(10);
  });
});
