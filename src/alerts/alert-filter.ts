/**
 * Which events a receiver gets: a minimum severity, kinds included and excluded. A kind pattern
 * is a kind (`shadow.lag-high`), a family (`shadow.*`), or `*`; a `*` stands for any characters.
 * A pattern naming no family of timeline events can never match, and is refused.
 */
import { severityRank, type Severity } from '../report/timeline/types.ts';

/** The families of timeline event kinds (the part before the dot). */
export const KIND_FAMILIES = ['api', 'collection', 'connections', 'iceberg', 'shadow', 'upgrade'] as const;

/** What a filter is made of (the collector's AlertFilterConfig). */
export interface AlertFilterSpec {
  readonly minSeverity: Severity;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

/** A kind pattern that cannot match any event. */
export class AlertFilterError extends Error {
  override readonly name = 'AlertFilterError';
}

/** Whether an event of this kind and severity passes. */
export type AlertFilter = (kind: string, severity: Severity) => boolean;

function patternRegex(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

/** Throws an AlertFilterError when `pattern` matches no family of kinds (`key` names it in the message). */
function checkPattern(pattern: string, key: string): RegExp {
  const dot = pattern.indexOf('.');
  const family = patternRegex(dot < 0 ? pattern : pattern.slice(0, dot));
  // `*lag*` may match inside any family
  const known = KIND_FAMILIES.some((f) => family.test(f)) || (dot < 0 && pattern.startsWith('*'));
  if (!known)
    throw new AlertFilterError(
      `${key}: ${JSON.stringify(pattern)} matches no event kind (kinds are ${KIND_FAMILIES.map((f) => `${f}.*`).join(', ')})`,
    );
  return patternRegex(pattern);
}

/** Compiles a filter; `key` names it in messages (`alerts.webhooks[0]`). */
export function compileAlertFilter(spec: AlertFilterSpec, key: string): AlertFilter {
  const include = spec.include.map((p) => checkPattern(p, `${key}.include`));
  const exclude = spec.exclude.map((p) => checkPattern(p, `${key}.exclude`));
  const min = severityRank(spec.minSeverity);
  return (kind, severity) =>
    severityRank(severity) >= min && include.some((re) => re.test(kind)) && !exclude.some((re) => re.test(kind));
}
