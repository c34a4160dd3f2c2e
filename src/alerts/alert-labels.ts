/**
 * An event as Alertmanager sees it: labels (`alertname` the event kind, `severity` in the words
 * Prometheus rules use, `cluster`, `entity`, `entity_kind` and the entity's parts: `broker`,
 * `link`, `topic`, ...; `source="flightrec"` for routes), annotations (the description, the evidence in one line, the flightrec
 * command that shows the event, and the three in one sentence) and a generatorURL naming that command. Text from the cluster
 * is made one line without control characters and cut short.
 */
import { sanitizeCell } from '../api/safe-text.ts';
import { formatTimestamp } from '../api/codec/timestamp.ts';
import { evidenceText } from '../report/render/timeline-common.ts';
import { splitEntity } from '../report/timeline/entity-names.ts';
import type { Severity, TimelineEvent } from '../report/timeline/types.ts';

/** Severity label values: the words of Prometheus alerting rules. */
export const SEVERITY_LABEL: Readonly<Record<Severity, string>> = { info: 'info', warn: 'warning', error: 'critical' };

/** Longest label value kept, in characters. */
export const MAX_LABEL_CHARS = 256;
/** Longest annotation kept, in characters. */
export const MAX_ANNOTATION_CHARS = 2048;

/** The names of an entity's parts, by entity kind (the rest of the reference, split at `/`; the last takes what is left). */
const PARTS: Readonly<Record<string, readonly string[]>> = {
  api: ['operation', 'target'],
  broker: ['broker'],
  client: ['client'],
  group: ['group'],
  'iceberg-topic': ['topic'],
  link: ['link'],
  listener: ['listener'],
  principal: ['principal'],
  'shadow-topic': ['link', 'topic'],
  software: ['software', 'version'],
  task: ['link', 'task', 'broker', 'shard'],
};

function clean(text: string, max: number): string {
  const one = sanitizeCell(text);
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/** The parts of an entity reference as labels (`shadow-topic/dr/orders`: link dr, topic orders). */
export function entityLabels(entity: string): Record<string, string> {
  const { kind, name } = splitEntity(entity);
  const out: Record<string, string> = { entity_kind: clean(kind, MAX_LABEL_CHARS) };
  const names = PARTS[kind];
  if (names === undefined || name === '') return out;
  let rest = name;
  names.forEach((label, i) => {
    if (rest === '') return;
    const slash = i === names.length - 1 ? -1 : rest.indexOf('/');
    out[label] = clean(slash < 0 ? rest : rest.slice(0, slash), MAX_LABEL_CHARS);
    rest = slash < 0 ? '' : rest.slice(slash + 1);
  });
  return out;
}

/** The labels of an event's alert (they identify it in Alertmanager). */
export function alertLabels(
  cluster: string,
  e: Pick<TimelineEvent, 'kind' | 'severity' | 'entity'>,
): Record<string, string> {
  return {
    ...entityLabels(e.entity),
    alertname: clean(e.kind, MAX_LABEL_CHARS),
    severity: SEVERITY_LABEL[e.severity],
    cluster: clean(cluster, MAX_LABEL_CHARS),
    entity: clean(e.entity, MAX_LABEL_CHARS),
    source: 'flightrec',
  };
}

/** A command-line word, quoted for a POSIX shell when it needs to be. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9._:/=@+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The flightrec command that shows the event: its timeline, for its entity, from its start (to its end). */
export function eventCommand(cluster: string, e: Pick<TimelineEvent, 'entity' | 'start' | 'end'>): string {
  const words = ['flightrec', 'timeline', '--cluster', cluster, '--for', e.entity, '--since', formatTimestamp(e.start)];
  if (e.end !== null) words.push('--until', formatTimestamp(e.end));
  return clean(words.map(shellWord).join(' '), MAX_ANNOTATION_CHARS);
}

/** The generatorURL: the same command as a `flightrec:` URL (Alertmanager shows it as the alert's source). */
export function generatorUrl(cluster: string, e: Pick<TimelineEvent, 'entity' | 'start' | 'end'>): string {
  const q = new URLSearchParams({ cluster, for: e.entity, since: formatTimestamp(e.start) });
  if (e.end !== null) q.set('until', formatTimestamp(e.end));
  return `flightrec:timeline?${q.toString()}`;
}

/**
 * The annotations of an event's alert: `summary` its one-line description, `evidence` what
 * supports it in one line, `command` the flightrec command that shows it, and `description` all
 * three in a sentence, for notification templates that show one annotation.
 */
export function alertAnnotations(cluster: string, e: TimelineEvent): Record<string, string> {
  const summary = clean(e.description, MAX_ANNOTATION_CHARS);
  const evidence = clean(evidenceText(e), MAX_ANNOTATION_CHARS);
  const command = eventCommand(cluster, e);
  const since = `${e.startedBefore ? 'at or before' : 'since'} ${formatTimestamp(e.start)}`;
  return {
    summary,
    evidence,
    command,
    description: clean(
      `${summary} (${since}${e.end === null ? '' : `, until ${formatTimestamp(e.end)}`}). Evidence: ${evidence}. See: ${command}`,
      MAX_ANNOTATION_CHARS,
    ),
  };
}
