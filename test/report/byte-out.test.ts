/**
 * ByteOut (src/report/render/byte-out.ts): the bytes handed over, joined, are everything written,
 * in order; a chunk is handed over only between items, each chunk a buffer of its own; an item
 * larger than a chunk grows the buffer and can still be rewound.
 */
import { describe, expect, it } from 'vitest';
import { ByteOut } from '../../src/report/render/byte-out.ts';
import { RESOURCES } from '../../src/api/schema/resources.ts';
import { queryToJsonText, formatJson, queryToJson } from '../../src/report/render/json.ts';
import type { QueryResult } from '../../src/report/query.ts';

describe('ByteOut', () => {
  it('hands over whole items in chunks of their own, the bytes in order', () => {
    const chunks: Buffer[] = [];
    const copies: Buffer[] = [];
    const o = new ByteOut((c) => chunks.push(c) && copies.push(Buffer.from(c)), 64);
    let expected = '';
    for (let i = 0; i < 200; i++) {
      const item = `${'x'.repeat(i % 150)}é${i};`;
      const start = o.pos;
      o.text('rewound');
      o.pos = start;
      o.ascii('[');
      o.text(item);
      o.bytes(Buffer.from(']'));
      expected += `[${item}]`;
      o.boundary();
    }
    o.end();
    expect(Buffer.concat(chunks).toString('utf8')).toBe(expected);
    // each chunk ends after an item, and is never written again once handed over
    for (const c of chunks) expect(c.toString('utf8').endsWith(']')).toBe(true);
    expect(chunks).toEqual(copies);
    expect(chunks.length).toBeGreaterThan(10);
    // and is handed over only once it holds a chunk's worth
    for (const c of chunks.slice(0, -1)) expect(c.length).toBeGreaterThanOrEqual(64);
  });

  it('writes a JSON row far larger than a chunk the same as the tree', () => {
    const apiVersions: Record<string, number> = {};
    for (let i = 0; i < 20_000; i++) apiVersions[String(i)] = i;
    const row = { uid: 'u', apiVersions, clientId: 'é'.repeat(70_000) };
    const r: QueryResult = {
      resource: 'connections',
      mode: 'range',
      since: 0n,
      until: 1n,
      filter: '',
      orderBy: '',
      rows: [row, row],
      total: 2,
    };
    expect(Object.keys(RESOURCES.connections.schema.fields)).toContain('apiVersions');
    expect(queryToJsonText(r)).toBe(formatJson(queryToJson(r)));
  });
});
