/**
 * Renderings of the timeline: golden files pin text, Markdown and JSON for one scenario; the
 * HTML page shows every event and no unescaped input; annotations follow Grafana's shape.
 * Golden files are vitest file snapshots: a missing one fails; write them with `npx vitest run -u`.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sanitizeForTerminal } from '../../src/api/safe-text.ts';
import { renderTimelineHtml } from '../../src/report/render/timeline-html.ts';
import {
  renderTimelineAnnotations,
  renderTimelineJson,
  renderTimelineNdjson,
} from '../../src/report/render/timeline-json.ts';
import { renderTimelineMarkdown } from '../../src/report/render/timeline-md.ts';
import { renderTimelineText } from '../../src/report/render/timeline-text.ts';
import { memorySource } from '../../src/report/timeline/memory-source.ts';
import { buildTimeline, type Timeline } from '../../src/report/timeline/timeline.ts';
import { loadCase } from '../fixtures/timeline/cases.ts';
import { recordSim } from '../fixtures/timeline/sim-recorder.ts';

/** Compares with a golden file under test/fixtures/timeline/golden/ (a vitest file snapshot). */
async function pin(name: string, actual: string): Promise<void> {
  await expect(actual).toMatchFileSnapshot(`../fixtures/timeline/golden/${name}`);
}

describe('timeline renderings of the broker-outage scenario (golden files)', () => {
  const rec = recordSim('broker-outage', { seed: 7, connections: 200 });
  const timeline = buildTimeline(memorySource(rec.polls), {});

  it('text', () => pin('broker-outage.txt', renderTimelineText(timeline, { color: false })));
  it('wide text', () => pin('broker-outage.wide.txt', renderTimelineText(timeline, { color: false, wide: true })));
  it('Markdown', () => pin('broker-outage.md', renderTimelineMarkdown(timeline)));
  it('JSON', () => pin('broker-outage.json', renderTimelineJson(timeline)));

  it('JSON uses RFC 3339 UTC times and poll ids as strings', () => {
    const doc = JSON.parse(renderTimelineJson(timeline)) as {
      events: { start: string; end: string | null; evidence: { pollIds: unknown[] } }[];
    };
    expect(doc.events.length).toBe(timeline.events.length);
    for (const e of doc.events) {
      expect(e.start).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
      for (const id of e.evidence.pollIds) expect(typeof id).toBe('string');
    }
    expect(renderTimelineNdjson(timeline).trim().split('\n')).toHaveLength(timeline.events.length);
  });

  it('annotations are Grafana annotations: epoch ms, regions for intervals, tags', () => {
    const items = JSON.parse(renderTimelineAnnotations(timeline)) as {
      time: number;
      timeEnd?: number;
      isRegion?: boolean;
      tags: string[];
      text: string;
    }[];
    expect(items).toHaveLength(timeline.events.length);
    timeline.events.forEach((e, i) => {
      const a = items[i]!;
      expect(a.time).toBe(Number(e.start / 1_000_000n));
      expect(a.tags).toContain(e.kind);
      expect(a.tags).toContain(e.severity);
      if (e.type === 'interval') {
        expect(a.isRegion).toBe(true);
        expect(a.timeEnd).toBe(Number((e.end ?? timeline.until) / 1_000_000n));
      } else expect(a.timeEnd).toBeUndefined();
    });
  });

  it('never writes an escape byte without colour, and paints severities with it', () => {
    expect(renderTimelineText(timeline, { color: false })).not.toContain('\u001b');
    expect(renderTimelineText(timeline, { color: true })).toContain('\u001b[31merror');
  });
});

describe('hostile strings from the cluster', () => {
  const c = loadCase(fileURLToPath(new URL('../fixtures/timeline/cases/hostile-strings.yaml', import.meta.url)));
  const timeline: Timeline = buildTimeline(memorySource(c.polls), {});

  it('produce events that carry them', () => {
    expect(timeline.events.some((e) => e.description.includes('<script>'))).toBe(true);
    expect(timeline.events.some((e) => e.description.includes('\u001b'))).toBe(true);
  });

  it('are shown harmlessly in HTML, which holds every event and no script or external asset', () => {
    const html = renderTimelineHtml(timeline);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('\u001b');
    expect(html).not.toContain('\u202e');
    // hostile markup only ever appears escaped, as text
    expect(html).not.toMatch(/<img|<[^>]*onerror|javascript:/i);
    expect(html).not.toMatch(/<[^>]*\s(src|href)=/i);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('\\x1b[31m');
    for (const e of timeline.events) {
      const desc = sanitizeForTerminal(e.description).slice(0, 40);
      expect(html).toContain(e.kind);
      expect(html.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))).toContain(desc);
    }
    // one table row per event
    expect(html.match(/<tr class="event /g)?.length).toBe(timeline.events.length);
  });

  it('are made visible, never executed, on a terminal and in Markdown', () => {
    const text = renderTimelineText(timeline, { color: false });
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u202e');
    expect(text).toContain('\\x1b[31m');
    const md = renderTimelineMarkdown(timeline);
    // an unescaped `<` only inside code spans, which Markdown shows literally
    expect(md.replace(/`[^`\n]*`/g, '')).not.toMatch(/(?<!\\)</);
    expect(md).toContain('\\<script\\>');
    expect(md).not.toContain('\u001b');
  });
});
