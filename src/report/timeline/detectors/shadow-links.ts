/**
 * Shadow links as polled by GetShadowLink: link state, task states with their reasons,
 * configuration changes, and Schema Registry sync errors (the error counter increasing,
 * `lastErrorMessage` changing).
 */
import type { ShadowLink } from '../../../api/schema/shadow-link.ts';
import type { DetectorContext, FrameDetector } from '../detector.ts';
import { IntervalBook } from '../interval-book.ts';
import { StateIntervals } from '../state-intervals.ts';
import { entity } from '../types.ts';
import { flattenValues } from './flatten.ts';

const LINK_SEVERITY = { SHADOW_LINK_STATE_PAUSED: 'warn', SHADOW_LINK_STATE_UNSPECIFIED: 'warn' } as const;
const TASK_SEVERITY = {
  TASK_STATE_PAUSED: 'info',
  TASK_STATE_LINK_UNAVAILABLE: 'error',
  TASK_STATE_NOT_RUNNING: 'warn',
  TASK_STATE_FAULTED: 'error',
  TASK_STATE_UNSPECIFIED: 'warn',
} as const;

interface LinkMemory {
  config: Map<string, string>;
  tasks: Set<string>;
  errors: bigint;
  lastError: string;
  erroring: boolean;
}

const MAX_LISTED = 20;

/** Detects link and task state changes, configuration changes and schema sync errors. */
export function shadowLinksDetector(_ctx: DetectorContext): FrameDetector<ShadowLink> {
  const book = new IntervalBook();
  const links = new StateIntervals(book, {
    kind: 'shadow.link-state',
    prefix: 'SHADOW_LINK_STATE_',
    severity: LINK_SEVERITY,
  });
  const tasks = new StateIntervals(book, { kind: 'shadow.task-state', prefix: 'TASK_STATE_', severity: TASK_SEVERITY });
  const memory = new Map<string, LinkMemory>();

  return {
    frame(f) {
      for (const link of f.rows) {
        const first = !memory.has(link.name);
        const linkRef = entity('link', link.name);
        const pollId = f.poll.id;
        links.observe({
          key: `link\u0000${link.name}`,
          entity: linkRef,
          label: `shadow link ${link.name}`,
          state: link.status.state,
          time: f.time,
          pollId,
          first,
        });
        let m = memory.get(link.name);
        const config = flattenValues(link.configurations);
        const srs = link.status.schemaRegistrySyncStatus;
        const errors = srs.totalsSinceTaskStart.errors;
        if (m === undefined) {
          memory.set(
            link.name,
            (m = { config, tasks: new Set(), errors, lastError: srs.lastErrorMessage, erroring: false }),
          );
        } else {
          configChange(book, linkRef, link.name, m.config, config, f.time, pollId);
          m.config = config;
        }
        const seen = new Set<string>();
        for (const t of link.status.taskStatuses) {
          const key = `task\u0000${link.name}\u0000${t.name}\u0000${t.brokerId}\u0000${t.shard}`;
          seen.add(key);
          tasks.observe({
            key,
            entity: entity('task', link.name, t.name, t.brokerId, t.shard),
            related: [linkRef, entity('broker', t.brokerId)],
            label: `task ${t.name} of ${link.name} on broker ${t.brokerId} shard ${t.shard}`,
            state: t.state,
            reason: t.reason,
            time: f.time,
            pollId,
            first,
          });
        }
        for (const key of m.tasks) if (!seen.has(key)) tasks.gone(key, f.time, pollId);
        m.tasks = seen;
        // schema registry: the error counter (reset on task restart) and the last message
        const added = errors >= m.errors ? errors - m.errors : errors;
        const srKey = `sr\u0000${link.name}`;
        if (added > 0n) {
          if (!m.erroring) {
            m.erroring = true;
            book.start(srKey, {
              kind: 'shadow.schema-sync-errors',
              severity: 'warn',
              entity: linkRef,
              start: f.time,
              description: '',
              before: { errors: String(m.errors) },
              pollId,
            });
          }
          book.update(srKey, {
            description: `schema registry sync of ${link.name} failing: errors ${errors}${srs.lastErrorMessage !== '' ? ` (${srs.lastErrorMessage})` : ''}`,
            after: { errors: String(errors), lastErrorMessage: srs.lastErrorMessage },
            pollId,
          });
        } else if (m.erroring) {
          m.erroring = false;
          book.end(srKey, f.time, pollId, { errors: String(errors) });
        }
        if (srs.lastErrorMessage !== m.lastError && srs.lastErrorMessage !== '') {
          book.point({
            kind: 'shadow.schema-sync-error-message',
            severity: 'warn',
            entity: linkRef,
            start: f.time,
            description: `schema registry sync of ${link.name}: ${srs.lastErrorMessage}`,
            before: { lastErrorMessage: m.lastError },
            after: { lastErrorMessage: srs.lastErrorMessage },
            pollId,
          });
        }
        m.errors = errors;
        m.lastError = srs.lastErrorMessage;
      }
    },
    finish() {
      return book.finish();
    },
  };
}

function configChange(
  book: IntervalBook,
  linkRef: string,
  name: string,
  before: Map<string, string>,
  after: Map<string, string>,
  time: bigint,
  pollId: bigint,
): void {
  const changed: string[] = [];
  for (const [k, v] of after) if (before.get(k) !== v) changed.push(k);
  for (const k of before.keys()) if (!after.has(k)) changed.push(k);
  if (changed.length === 0) return;
  changed.sort();
  const b: Record<string, string> = {};
  const a: Record<string, string> = {};
  for (const k of changed.slice(0, MAX_LISTED)) {
    b[k] = before.get(k) ?? '(unset)';
    a[k] = after.get(k) ?? '(unset)';
  }
  const shown = changed.slice(0, 3).join(', ') + (changed.length > 3 ? ` and ${changed.length - 3} more` : '');
  book.point({
    kind: 'shadow.config-changed',
    severity: 'info',
    entity: linkRef,
    start: time,
    description: `configuration of ${name} changed: ${shown}`,
    before: b,
    after: a,
    pollId,
  });
}
