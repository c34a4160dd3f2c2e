/** The summary: what is abnormal at the end of the window, what changed in it, the headline figures. */
import { describe, expect, it } from 'vitest';
import { renderSummaryJson } from '../../src/report/render/summary-json.ts';
import { renderSummaryText } from '../../src/report/render/summary-text.ts';
import { summarize } from '../../src/report/summary.ts';
import { memorySource } from '../../src/report/timeline/memory-source.ts';
import { recordSim } from '../fixtures/timeline/sim-recorder.ts';

const S = 1_000_000_000n;

describe('summary of the incident scenario, ten minutes in', () => {
  const rec = recordSim('incident', { seed: 3, connections: 150, seconds: 600 });
  const source = memorySource(rec.polls);
  const summary = summarize(source, { until: rec.start + 600n * S, window: 600n * S });

  it('lists the ongoing warn and error intervals, errors first', () => {
    const kinds = summary.abnormal.map((e) => e.kind);
    expect(kinds[0]).toBe('iceberg.catalog-unreachable');
    expect(kinds).toContain('connections.group-idle');
    expect(summary.abnormal.every((e) => e.end === null && e.severity !== 'info')).toBe(true);
    // the broker came back: no longer abnormal, but a change of the window
    expect(kinds).not.toContain('upgrade.member-down');
    expect(summary.changes.map((c) => c.kind)).toContain('upgrade.member-down');
  });

  it('groups the changes by kind, most severe first', () => {
    const severities = summary.changes.map((c) => c.severity);
    const order = { error: 2, warn: 1, info: 0 } as const;
    for (let i = 1; i < severities.length; i++)
      expect(order[severities[i - 1]!]).toBeGreaterThanOrEqual(order[severities[i]!]);
    expect(summary.changes.reduce((n, c) => n + c.count, 0)).toBe(summary.eventCount);
  });

  it('is a short plain-text block for a chat', () => {
    const text = renderSummaryText(summary);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toContain('10m00s until 2026-01-01T00:10:00Z');
    expect(text).toContain('Abnormal now (');
    expect(text).toContain('[ERROR] Iceberg catalog unreachable: io_error');
    expect(text).toContain('Changed in the window (');
    expect(text).toMatch(/Now: open connections \d+/);
    expect(lines.length).toBeLessThan(40);
    expect(text).not.toContain('\u001b');
  });

  it('never dates a kind still open to the end of the window: it says how many are open', () => {
    const catalog = summary.changes.find((c) => c.kind === 'iceberg.catalog-unreachable');
    expect(catalog).toMatchObject({ count: 1, open: 1 });
    const member = summary.changes.find((c) => c.kind === 'upgrade.member-down');
    expect(member?.open).toBe(0);
    const text = renderSummaryText(summary);
    const line = (kind: string): string => text.split('\n').find((l) => l.includes(` ${kind} ×`)) ?? '';
    // the outage is ongoing at 00:10:00: not "00:08:00–00:10:00", which reads as an end seen
    expect(line('iceberg.catalog-unreachable')).toMatch(/\(from 00:0\d:\d\d, still open\)$/);
    expect(line('upgrade.member-down')).toMatch(/\(00:\d\d:\d\d–00:\d\d:\d\d\)$/);
    const doc = JSON.parse(renderSummaryJson(summary)) as { changes: { kind: string; open: number; last: string }[] };
    expect(doc.changes.find((c) => c.kind === 'iceberg.catalog-unreachable')).toMatchObject({
      open: 1,
      last: '2026-01-01T00:10:00.000000000Z',
    });
    expect(doc.changes.every((c) => Number.isInteger(c.open) && c.open >= 0)).toBe(true);
  });

  it('is JSON with the abnormal events in full', () => {
    const doc = JSON.parse(renderSummaryJson(summary)) as {
      abnormal: { kind: string; ongoing: boolean }[];
      changes: unknown[];
      until: string;
      figures: { name: string }[];
    };
    expect(doc.until).toBe('2026-01-01T00:10:00.000000000Z');
    expect(doc.abnormal.every((e) => e.ongoing)).toBe(true);
    expect(doc.figures.map((f) => f.name)).toContain('open connections');
  });

  it('says when nothing is abnormal', () => {
    const quiet = summarize(memorySource(recordSim('quiet', { seed: 3, connections: 80, seconds: 300 }).polls), {
      until: rec.start + 300n * S,
      window: 300n * S,
    });
    expect(quiet.abnormal).toEqual([]);
    expect(renderSummaryText(quiet)).toContain('Abnormal now: nothing.');
  });

  it('reports a collector that stopped as an ongoing gap', () => {
    const later = summarize(source, { until: rec.start + 900n * S, window: 600n * S });
    expect(later.abnormal.map((e) => e.kind)).toContain('collection.gap');
  });
});
