/** The header's stale marker: which operations' newest successful poll is too old at the instant shown. */
import { formatSpan } from '../../report/format-units.ts';
import type { Freshness } from '../../report/freshness.ts';

/** `STALE: GetUpgradeStatus 6m old (every 1m)` (`+2 more` when several), or undefined when fresh. */
export function staleBadge(f: Freshness | undefined): string | undefined {
  if (f === undefined || !f.stale) return undefined;
  const stale = f.operations
    .filter((o) => o.stale)
    .sort((a, b) => (a.ageNs > b.ageNs ? -1 : a.ageNs < b.ageNs ? 1 : 0));
  const first = stale[0];
  if (first === undefined) return 'STALE: nothing observed';
  const more = stale.length > 1 ? ` +${stale.length - 1} more` : '';
  return `STALE: ${first.operation} ${formatSpan(first.ageNs)} old (every ${formatSpan(first.intervalNs)})${more}`;
}
