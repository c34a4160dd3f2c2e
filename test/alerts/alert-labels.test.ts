/** Labels and annotations of an event's alert: the entity's parts, untrusted text made safe and short, the command. */
import { describe, expect, it } from 'vitest';
import {
  alertAnnotations,
  alertLabels,
  entityLabels,
  eventCommand,
  MAX_LABEL_CHARS,
} from '../../src/alerts/alert-labels.ts';
import type { TimelineEvent } from '../../src/report/timeline/types.ts';

const base: TimelineEvent = {
  kind: 'shadow.task-state',
  severity: 'error',
  entity: 'task/dr-primary/source_topic_sync/1/1',
  related: [],
  type: 'interval',
  start: 0n,
  end: null,
  startedBefore: true,
  description: 'task source_topic_sync FAULTED',
  evidence: { before: {}, during: { state: 'FAULTED' }, after: {}, pollIds: [] },
};

describe('alert labels', () => {
  it('names the parts of every kind of entity', () => {
    expect(entityLabels('task/dr-primary/source_topic_sync/1/1')).toEqual({
      entity_kind: 'task',
      link: 'dr-primary',
      task: 'source_topic_sync',
      broker: '1',
      shard: '1',
    });
    expect(entityLabels('api/GetShadowTopic/dr-primary/orders')).toEqual({
      entity_kind: 'api',
      operation: 'GetShadowTopic',
      target: 'dr-primary/orders',
    });
    expect(entityLabels('software/apache-kafka-java/2.8.1')).toEqual({
      entity_kind: 'software',
      software: 'apache-kafka-java',
      version: '2.8.1',
    });
    // a client id may hold a slash: the last part takes the rest
    expect(entityLabels('client/team/app-1')).toEqual({ entity_kind: 'client', client: 'team/app-1' });
    expect(entityLabels('iceberg-catalog/cluster')).toEqual({ entity_kind: 'iceberg-catalog' });
    expect(entityLabels('upgrade')).toEqual({ entity_kind: 'upgrade' });
  });

  it('puts text from the cluster on one line without control or bidi characters, cut short', () => {
    const evil = `client/x\n\u001b[31mred\u202eevil${'y'.repeat(400)}`;
    const labels = alertLabels('prod', { ...base, kind: 'connections.client-vanished', entity: evil });
    for (const v of Object.values(labels)) {
      expect(v.length).toBeLessThanOrEqual(MAX_LABEL_CHARS);
      // eslint-disable-next-line no-control-regex -- what must not be there
      expect(v).not.toMatch(/[\u0000-\u001f\u007f\u202e]/);
    }
    expect(labels.client!.startsWith('x\\n\\x1b[31mred\\u202eevil')).toBe(true);
    expect(labels.client!.endsWith('…')).toBe(true);
  });

  it('annotates with the description, the evidence, the command, and the three together; extreme times are fine', () => {
    const a = alertAnnotations('prod', { ...base, end: 2n ** 62n });
    expect(a.summary).toBe('task source_topic_sync FAULTED');
    expect(a.evidence).toBe('state: FAULTED');
    expect(a.command).toBe(
      'flightrec timeline --cluster prod --for task/dr-primary/source_topic_sync/1/1 --since 1970-01-01T00:00:00.000000000Z --until 2116-02-20T23:53:38.427387904Z',
    );
    expect(a.description).toBe(
      `task source_topic_sync FAULTED (at or before 1970-01-01T00:00:00.000000000Z, until 2116-02-20T23:53:38.427387904Z). Evidence: state: FAULTED. See: ${a.command}`,
    );
    // a word a shell would split is quoted
    expect(eventCommand("it's prod", { entity: 'client/a b', start: 0n, end: null })).toBe(
      "flightrec timeline --cluster 'it'\\''s prod' --for 'client/a b' --since 1970-01-01T00:00:00.000000000Z",
    );
  });
});
