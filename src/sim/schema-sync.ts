/** Schema Registry sync status of a link in API mode: running sync, last full sync, totals, inventory. */
import {
  SchemaRegistrySyncStatus as SyncStatusSchema,
  type SyncCounters as SyncCountersSchema,
} from '../api/schema/shadow-link.ts';
import type { Infer } from '../api/schema/fields.ts';
import { defaultMessage } from '../api/wire/defaults.ts';
import { hash } from './rng.ts';
import { absNs, sec } from './time.ts';
import type { Plan, Window } from './plan.ts';
import type { LinkSpec } from './links.ts';
import type { LinkPlan } from './link-plan.ts';

type SyncStatus = Infer<typeof SyncStatusSchema>;
type Counters = Infer<typeof SyncCountersSchema>;

const FULL_EVERY = sec(300);
const TAIL_EVERY = sec(10);
const TAIL_TAKES = sec(0.8);
/** The link's task started three days before the world. */
const LINK_START = -sec(3 * 86_400);

/** Source subject versions at x µs: a new version about every 150 s. */
function versions(x: number): number {
  return 800 + Math.floor((x - LINK_START) / sec(150));
}

function subjects(x: number): number {
  return 140 + Math.floor((x - LINK_START) / sec(6 * 3600));
}

function inside(ws: readonly Window[], t: number): Window | undefined {
  return ws.find((w) => t >= w.from && t < w.to);
}

function counters(plan: Plan, changed: number, errors: number, start: number, finish: number | undefined): Counters {
  return {
    compatibilityConfigsChanged: BigInt(Math.floor(changed / 20)),
    errors: BigInt(errors),
    modesChanged: BigInt(Math.floor(changed / 60)),
    subjectVersionsChanged: BigInt(changed),
    unsupportedFeaturesRemoved: BigInt(Math.floor(changed / 7)),
    startTime: absNs(plan.config.start, start),
    finishTime: finish === undefined ? 0n : absNs(plan.config.start, finish),
  };
}

/** The schemaRegistrySyncStatus of a link at t (µs); all defaults for a link in topic mode. */
export function schemaRegistryStatus(plan: Plan, link: LinkSpec, lp: LinkPlan, t: number): SyncStatus {
  if (!link.schemaApi) return defaultMessage(SyncStatusSchema);
  const status = defaultMessage(SyncStatusSchema);
  const leader = plan.config.brokers[hash(plan.config.seed, link.index, 41) % plan.config.brokers.length] as number;
  const restarts = [
    ...lp.paused.map((w) => w.to),
    ...(plan.downs.get(leader) ?? []).flatMap((w) => [w.from, w.to]),
  ].filter((x) => Number.isFinite(x) && x <= t);
  const ts = Math.max(LINK_START, ...restarts);
  const unavailable = lp.unavailable;
  const down = inside(unavailable, t);
  const paused = inside(lp.paused, t) !== undefined;
  // the last successful sync: now (tail polls every 10 s), or when the source became unreachable
  const lastSync =
    down !== undefined
      ? down.from
      : paused
        ? (inside(lp.paused, t) as Window).from
        : ts + Math.floor((t - ts) / TAIL_EVERY) * TAIL_EVERY;
  let errors = 0;
  for (const w of unavailable) {
    const a = Math.max(w.from, ts);
    const b = Math.min(w.to, t);
    if (b > a) errors += Math.ceil((b - a) / TAIL_EVERY);
  }
  const changedSinceStart = Math.max(0, versions(lastSync) - versions(ts));
  status.totalsSinceTaskStart = counters(plan, changedSinceStart, errors, ts, undefined);
  status.inventory = {
    selectedSourceSubjects: BigInt(subjects(t)),
    selectedSourceSubjectVersions: BigInt(versions(t)),
    destinationSubjects: BigInt(subjects(lastSync)),
    destinationSubjectVersions: BigInt(versions(lastSync)),
  };
  const k = Math.floor((t - ts) / FULL_EVERY);
  const fullTakes = (i: number): number => sec(12 + (hash(plan.config.seed, link.index, ts, i) % 28));
  const fullStart = ts + k * FULL_EVERY;
  const prevK = t >= fullStart + fullTakes(k) ? k : k - 1;
  if (prevK >= 0) {
    const s = ts + prevK * FULL_EVERY;
    const f = s + fullTakes(prevK);
    const failed = inside(unavailable, s) !== undefined;
    status.lastFullSync = counters(
      plan,
      failed ? 0 : Math.max(0, versions(s) - versions(s - FULL_EVERY)),
      failed ? 1 : 0,
      s,
      f,
    );
  }
  if (!paused) {
    if (t < fullStart + fullTakes(k)) {
      const progress = (t - fullStart) / fullTakes(k);
      const changed = down
        ? 0
        : Math.floor(progress * Math.max(0, versions(fullStart) - versions(fullStart - FULL_EVERY)));
      status.currentSync = {
        syncType: 'SCHEMA_REGISTRY_SYNC_TYPE_FULL',
        summary: counters(plan, changed, down ? 1 : 0, fullStart, undefined),
      };
    } else {
      const tailStart = ts + Math.floor((t - ts) / TAIL_EVERY) * TAIL_EVERY;
      if (t < tailStart + TAIL_TAKES) {
        const changed = down ? 0 : Math.max(0, versions(tailStart) - versions(tailStart - TAIL_EVERY));
        status.currentSync = {
          syncType: 'SCHEMA_REGISTRY_SYNC_TYPE_TAIL',
          summary: counters(plan, changed, down ? 1 : 0, tailStart, undefined),
        };
      }
    }
  }
  const recentFailure = unavailable.find((w) => t >= w.from && t < w.to + sec(600));
  if (recentFailure !== undefined) {
    const url = link.configurations.schemaRegistrySyncOptions.shadowSchemaRegistryApi?.sourceUrl ?? '';
    status.lastErrorMessage = `source schema registry unreachable: GET ${url}/subjects: context deadline exceeded`;
  }
  return status;
}
