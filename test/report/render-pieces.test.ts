/**
 * `query` writes its answer a piece at a time (renderQueryPieces): the pieces, joined, are the
 * text each format made as one string before, they break only at line ends, and they stay well
 * below 128 KB (the size from which V8 and malloc take fresh pages for each one).
 */
import { describe, expect, it } from 'vitest';
import type { PollRow } from '../../src/api/schema/resources.ts';
import type { QueryResult } from '../../src/report/query.ts';
import { renderQuery, renderQueryPieces, type QueryFormat } from '../../src/report/render/index.ts';
import { encodeRow, encodeSample, formatJson, queryToJson } from '../../src/report/render/json.ts';
import { ConnectionWorld } from '../helpers/connection-answers.ts';

const ESC = '\u001b';
const plain = { color: false };
/** Client ids a terminal would act on or draw wide: escaped in every format, as before. */
const NASTY = [`bad${ESC}[2J`, 'a\u202eb', 'c\u0085d', 'é漢字😀', 'tab\there', 'line\u2028sep', 'del\u007f'];

const world = new ConnectionWorld({ connections: 600, seed: 5, unknownFields: true, hugeCounters: true });
const rows = world
  .next()
  .answer.connections.map((c, i) => (i % 37 === 0 ? { ...c, clientId: NASTY[(i / 37) % NASTY.length]! } : c));
const poll: PollRow = {
  id: 9n,
  cluster: 'c',
  operation: 'ListKafkaConnections',
  target: '',
  scheduledTime: 1_767_225_600_000_000_000n,
  startTime: 1_767_225_600_000_000_000n,
  endTime: 1_767_225_600_012_000_000n,
  duration: 12_000_000n,
  outcome: 'ok',
  httpStatus: 200,
  message: '',
  bytes: 100n,
  rowsReturned: 600n,
  totalSize: 600n,
  fanoutCalls: 0,
  coverage: 'complete',
};
const at: QueryResult = {
  resource: 'connections',
  mode: 'at',
  at: 1_767_225_630_000_000_000n,
  poll,
  filter: '',
  orderBy: '',
  rows,
  total: rows.length,
  failures: 0,
};
const samples = rows.map((row, i) => ({ poll: { ...poll, id: BigInt(i + 1) }, row }));
const range: QueryResult = {
  resource: 'connections',
  mode: 'range',
  since: 1n,
  until: 2n,
  filter: '',
  orderBy: '',
  rows,
  samples,
  total: rows.length,
};

const pieces = (r: QueryResult, f: QueryFormat): string[] => [...renderQueryPieces(r, f, plain)];

describe('a query answer in pieces', () => {
  it('is the JSON document of the whole tree, byte for byte', () => {
    for (const r of [at, range]) {
      const p = pieces(r, 'json');
      expect(p.length).toBeGreaterThan(10);
      expect(p.join('')).toBe(`${formatJson(queryToJson(r))}\n`);
    }
  });

  it('is ndjson of each row (or sample) alone', () => {
    expect(pieces(at, 'ndjson').join('')).toBe(
      rows.map((x) => `${formatJson(encodeRow('connections', x), 0)}\n`).join(''),
    );
    expect(pieces(range, 'ndjson').join('')).toBe(
      samples.map((s) => `${formatJson(encodeSample('connections', s), 0)}\n`).join(''),
    );
  });

  it('is CSV of the header and each row rendered alone', () => {
    for (const r of [at, range]) {
      const one = (i: number): string => {
        const single = { ...r, rows: [rows[i]!], ...(r.samples ? { samples: [r.samples[i]!] } : {}) };
        const text = renderQuery(single, 'csv', plain);
        return text.slice(text.indexOf('\r\n') + 2);
      };
      const all = pieces(r, 'csv').join('');
      const header = all.slice(0, all.indexOf('\r\n') + 2);
      expect(all).toBe(header + rows.map((_, i) => one(i)).join(''));
    }
  });

  it('is a table of one line per row, in order, escaped as before', () => {
    for (const f of ['table', 'wide'] as const) {
      const lines = pieces(at, f).join('').split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toHaveLength(rows.length + 1);
      rows.forEach((x, i) => expect(lines[i + 1]!.startsWith(x.uid)).toBe(true));
      const text = lines.join('\n');
      expect(text).toContain('bad\\x1b[2J');
      expect(text).toContain('a\\u202eb');
      expect(text).toContain('tab\\there');
      expect(text).toContain('é漢字😀');
    }
  });

  it('escapes what a terminal would act on in every format (and line separators in JSON)', () => {
    for (const f of ['json', 'ndjson', 'csv', 'table', 'wide'] as const) {
      const text = pieces(at, f).join('');
      const unsafe = [ESC, '\u202e', '\u0085', '\u007f', ...(f === 'json' || f === 'ndjson' ? ['\u2028'] : [])];
      for (const c of unsafe) expect(text.includes(c), `${f} ${JSON.stringify(c)}`).toBe(false);
    }
  });

  it('breaks only at line ends, in pieces well below 128 KB', () => {
    for (const r of [at, range]) {
      for (const f of ['json', 'ndjson', 'csv', 'table', 'wide'] as const) {
        const p = pieces(r, f);
        expect(p.length, f).toBeGreaterThan(1);
        for (const piece of p) {
          expect(piece.length, f).toBeLessThan(96 * 1024);
          if (f !== 'json') expect(piece.endsWith('\n'), f).toBe(true);
        }
      }
    }
  });
});
