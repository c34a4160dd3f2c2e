import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  csvCell,
  displayWidth,
  formatAge,
  formatBytes,
  formatByteRate,
  formatCount,
  formatCountRate,
  formatDelta,
  formatJson,
  formatSpan,
  renderDiff,
  renderQuery,
  renderTable,
  runQuery,
  diffStates,
  truncate,
  type TableView,
} from '../../src/report/index.ts';
import { toJsonValue } from '../../src/report/render/json.ts';
import { fakeReader } from '../fixtures/report/fake-reader.ts';
import { scenarioRecords, T } from '../fixtures/report/scenario.ts';

const ESC = '\u001b';
const reader = fakeReader(scenarioRecords());
const plain = { color: false };

describe('human units', () => {
  it('formats bytes, rates and counts', () => {
    expect([0, 512, 1024, 1536, 10 * 1024 * 1024, 150 * 1024 ** 3].map((b) => formatBytes(b))).toEqual([
      '0 B',
      '512 B',
      '1.0 KiB',
      '1.5 KiB',
      '10.0 MiB',
      '150 GiB',
    ]);
    expect(formatBytes(9_223_372_036_854_775_807n)).toBe('8.0 EiB');
    expect(formatByteRate(3.4 * 1024 * 1024)).toBe('3.4 MiB/s');
    expect([999, 1200, 34_500_000].map(formatCount)).toEqual(['999', '1.2k', '34.5M']);
    expect([0, 0.5, 12, 1500].map(formatCountRate)).toEqual(['0/s', '0.5/s', '12/s', '1.5k/s']);
    expect(formatDelta(1536n, 'bytes')).toBe('+1.5 KiB');
    expect(formatDelta(-3n, 'count')).toBe('-3');
  });

  it('formats ages against the observation instant, and unset times as -', () => {
    const now = T[0]!;
    expect(formatAge(now - 300_000_000_000n, now)).toBe('5m ago');
    expect(formatAge(now + 120_000_000_000n, now)).toBe('in 2m');
    expect(formatAge(0n, now)).toBe('-');
    expect([42n, 3_720n, 90_000n, 86_400n].map((s) => formatSpan(s * 1_000_000_000n))).toEqual([
      '42s',
      '1h2m',
      '1d1h',
      '1d',
    ]);
    // one form at every scale: never 118s beside 6h11m
    expect([59n, 118n, 120n, 22_260n].map((s) => formatSpan(s * 1_000_000_000n))).toEqual([
      '59s',
      '1m58s',
      '2m',
      '6h11m',
    ]);
  });
});

describe('text tables', () => {
  const view: TableView = {
    columns: [
      { id: 'name', header: 'NAME', align: 'left' },
      { id: 'n', header: 'N', align: 'right' },
      { id: 'note', header: 'NOTE', align: 'left' },
    ],
    rows: [
      { cells: ['a-very-long-client-identifier', '7', `bad${ESC}[2Jtext`], tones: ['ok', undefined, 'error'] },
      { cells: ['漢字', '12345', 'x'], tones: [undefined, undefined, undefined] },
    ],
  };

  it('pads, right-aligns numbers and never writes an escape byte without colour', () => {
    const text = renderTable(view, plain);
    expect(text).not.toContain(ESC);
    expect(text.split('\n')).toEqual([
      'NAME                               N  NOTE',
      'a-very-long-client-identifier      7  bad\\x1b[2Jtext',
      '漢字                           12345  x',
      '',
    ]);
  });

  it('truncates the widest text columns to the terminal width', () => {
    const lines = renderTable(view, { color: false, width: 30 }).trimEnd().split('\n');
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(30);
    expect(lines[1]).toContain('…');
    expect(truncate('abcdef', 4)).toBe('abc…');
  });

  it('colours tones and headers only when allowed', () => {
    const text = renderTable(view, { color: true });
    expect(text).toContain(`${ESC}[1mNAME`);
    expect(text).toContain(`${ESC}[32ma-very-long-client-identifier`);
  });
});

describe('CSV', () => {
  it('quotes per RFC 4180 and guards against formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=1+2')).toBe("'=1+2");
    expect(csvCell('+31 6')).toBe("'+31 6");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('-2+3')).toBe("'-2+3");
    expect(csvCell('-5')).toBe('-5');
    expect(csvCell('-1.5')).toBe('-1.5');
    expect(csvCell(`x${ESC}y`)).toBe('x\\x1by');
  });

  it('writes one column per field path, values in API form, CRLF line ends', () => {
    const csv = renderQuery(runQuery(reader, { resource: 'connections', at: T[2]! }), 'csv', plain);
    const lines = csv.split('\r\n');
    expect(lines[0]).toMatch(/^apiVersions,authenticationInfo\.mechanism,authenticationInfo\.state,/);
    expect(lines).toHaveLength(5);
    expect(csv).not.toContain(ESC);
    expect(lines[3]).toContain(`,"'=cmd|""/C calc""!A0\\x1b[31m-evil",`);
    const range = renderQuery(runQuery(reader, { resource: 'connections', since: T[0]!, until: T[1]! }), 'csv', plain);
    expect(range.split('\r\n')[1]).toMatch(/^2025-09-01T10:00:00\.000000000Z,1,/);
  });
});

describe('JSON, ndjson and YAML', () => {
  it('writes int64 as strings with the API field names, and escapes terminal-unsafe characters', () => {
    const json = renderQuery(runQuery(reader, { resource: 'connections', at: T[2]! }), 'json', plain);
    expect(json).not.toContain(ESC);
    expect(json).toContain('\\u001b[31m');
    const doc = JSON.parse(json) as {
      pollId: string;
      rows: { totalRequestStatistics: { fetchBytes: string }; closeTime: string }[];
    };
    expect(doc.pollId).toBe('5');
    expect(doc.rows[0]!.totalRequestStatistics.fetchBytes).toBe('1012000000');
    expect(doc.rows[0]!.closeTime).toBe('1970-01-01T00:00:00.000000000Z');
    expect(formatJson({ s: '\u202e\u0085', big: 12n ** 20n }, 0)).toBe(
      '{"s":"\\u202e\\u0085","big":3833759992447475122176}',
    );
  });

  it('turns plain data into a JSON tree, leaving out undefined fields and refusing what JSON cannot hold', () => {
    interface Probe {
      readonly name: string;
      readonly status?: number;
      readonly items: readonly { readonly ok: boolean }[];
    }
    const probe: Probe = { name: 'x', status: undefined, items: [{ ok: true }] };
    const tree = toJsonValue({ probe, big: 2n ** 70n, none: null });
    expect(formatJson(tree, 0)).toBe(
      '{"probe":{"name":"x","items":[{"ok":true}]},"big":1180591620717411303424,"none":null}',
    );
    expect(formatJson(tree)).toBe(
      formatJson({ probe: { name: 'x', items: [{ ok: true }] }, big: 2n ** 70n, none: null }),
    );
    expect(() => toJsonValue({ probe, run: () => 1 })).toThrow('$.run: function is not a JSON value');
    expect(() => toJsonValue({ items: [1, undefined] })).toThrow('$.items[1]: undefined is not a JSON value');
  });

  it('writes one document per line in ndjson', () => {
    const nd = renderQuery(runQuery(reader, { resource: 'connections', since: T[0]!, until: T[1]! }), 'ndjson', plain);
    const lines = nd.trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      time: '2025-09-01T10:00:00.000000000Z',
      pollId: '1',
      row: { uid: expect.any(String) },
    });
  });

  it('writes the JSON document as YAML', () => {
    const y = renderQuery(runQuery(reader, { resource: 'connections', at: T[2]! }), 'yaml', plain);
    expect(y).not.toContain(ESC);
    const doc = parseYaml(y) as {
      total: number;
      rows: { uid: string; totalRequestStatistics: { fetchBytes: string } }[];
    };
    expect(doc.total).toBe(3);
    expect(doc.rows[0]!.totalRequestStatistics.fetchBytes).toBe('1012000000');
  });
});

describe('golden renderings of the report scenario', () => {
  const at = runQuery(reader, { resource: 'connections', at: T[2]! });
  const diff = diffStates(reader, { from: T[0]!, to: T[2]! });
  const unobserved = diffStates(reader, { from: T[0]!, to: T[3]!, resources: ['connections', 'shadow-links'] });

  it('pins query renderings', async () => {
    await expect(renderQuery(at, 'table', plain)).toMatchFileSnapshot('../fixtures/report/query-connections.txt');
    await expect(renderQuery(at, 'wide', plain)).toMatchFileSnapshot('../fixtures/report/query-connections-wide.txt');
    await expect(renderQuery(at, 'md', plain)).toMatchFileSnapshot('../fixtures/report/query-connections.md');
    await expect(renderQuery(at, 'json', plain)).toMatchFileSnapshot('../fixtures/report/query-connections.json');
    const links = runQuery(reader, { resource: 'shadow-links', at: T[2]! });
    await expect(renderQuery(links, 'wide', plain)).toMatchFileSnapshot(
      '../fixtures/report/query-shadow-links-wide.txt',
    );
    const range = runQuery(reader, {
      resource: 'shadow-partitions',
      since: T[0]!,
      until: T[4]!,
      filter: 'partition_id = 0',
    });
    await expect(renderQuery(range, 'table', plain)).toMatchFileSnapshot(
      '../fixtures/report/query-partitions-range.txt',
    );
  });

  it('pins diff renderings', async () => {
    await expect(renderDiff(diff, 'table', plain)).toMatchFileSnapshot('../fixtures/report/diff.txt');
    await expect(renderDiff(diff, 'md', plain)).toMatchFileSnapshot('../fixtures/report/diff.md');
    await expect(renderDiff(diff, 'json', plain)).toMatchFileSnapshot('../fixtures/report/diff.json');
    await expect(renderDiff(unobserved, 'table', plain)).toMatchFileSnapshot('../fixtures/report/diff-unobserved.txt');
    await expect(renderDiff(unobserved, 'md', plain)).toMatchFileSnapshot('../fixtures/report/diff-unobserved.md');
  });

  it('colours the diff only when allowed', () => {
    expect(renderDiff(diff, 'table', plain)).not.toContain(ESC);
    expect(renderDiff(diff, 'md', plain)).not.toContain(ESC);
    expect(renderDiff(diff, 'table', { color: true })).toContain(`${ESC}[32m  + `);
  });
});
