/**
 * Growth of a history database, as pure arithmetic over what growth-inputs.ts reads: bytes per
 * day over the last day and the last week (estimated from the stored bytes of the polls in each
 * window), and, for a retention, the size the file settles at once pruning keeps pace.
 */

/** One day in nanoseconds. */
export const DAY_NS = 86_400_000_000_000n;

/** The stored bytes of the polls in one window, as read from the database. */
export interface WindowBytes {
  /** the window's length asked for, days (1 or 7) */
  readonly days: number;
  /** estimated bytes the window's polls take in the file */
  readonly bytes: number;
  /** polls in the window */
  readonly polls: number;
}

/** What the growth is computed from. */
export interface GrowthInputs {
  /** start of the oldest and the newest poll, ns since the epoch (undefined: no poll) */
  readonly oldest?: bigint;
  readonly newest?: bigint;
  readonly windows: readonly WindowBytes[];
}

/** The growth over one window. */
export interface WindowGrowth {
  readonly days: number;
  /** what the window's polls take (estimated), bytes */
  readonly bytes: number;
  readonly polls: number;
  /** the part of the window the database covers, seconds (shorter than the window for a young database) */
  readonly coveredSeconds: number;
  /** bytes per day over the covered part; undefined when it is empty */
  readonly bytesPerDay?: number;
}

/** Growth rates, the windows ending at the newest poll. */
export interface Growth {
  /** end of the windows: the newest poll's start, ns since the epoch */
  readonly until?: bigint;
  readonly lastDay: WindowGrowth;
  readonly lastWeek: WindowGrowth;
}

/** Retention as the projection needs it: days kept at each resolution (null: forever), and the size cap. */
export interface RetentionDays {
  readonly rawDays: number | null;
  readonly rollupsDays: number | null;
  readonly maxSizeBytes: number | null;
}

/** The size the database settles at under a retention. */
export interface Projection {
  /** raw history: bytes per day times the days kept */
  readonly rawBytes: number;
  /** rollup history: bytes per day times the days kept; undefined when not measured */
  readonly rollupBytes?: number;
  /** rawBytes plus rollupBytes (when known), capped by maxSize */
  readonly bytes: number;
  /** true when maxSize is what bounds it */
  readonly capped: boolean;
  /** why the figure is partial or absent, in words; empty when complete */
  readonly notes: readonly string[];
}

function windowGrowth(w: WindowBytes | undefined, days: number, span: bigint | undefined): WindowGrowth {
  const windowNs = BigInt(days) * DAY_NS;
  const covered = span === undefined ? 0n : span < windowNs ? span : windowNs;
  const coveredSeconds = Number(covered / 1_000_000_000n);
  const bytes = w?.bytes ?? 0;
  const base = { days, bytes, polls: w?.polls ?? 0, coveredSeconds };
  return covered <= 0n ? base : { ...base, bytesPerDay: Math.round((bytes * 86_400) / (Number(covered) / 1e9)) };
}

/** Bytes per day over the last day and week before the newest poll (a younger database: over what it covers). */
export function growthOf(inputs: GrowthInputs): Growth {
  const span = inputs.oldest === undefined || inputs.newest === undefined ? undefined : inputs.newest - inputs.oldest;
  const find = (days: number): WindowBytes | undefined => inputs.windows.find((w) => w.days === days);
  return {
    ...(inputs.newest === undefined ? {} : { until: inputs.newest }),
    lastDay: windowGrowth(find(1), 1, span),
    lastWeek: windowGrowth(find(7), 7, span),
  };
}

/**
 * The steady-state size under a retention: the raw history settles at its rate (the week's,
 * or the day's when the week is not measured) times the raw days kept, the rollups at theirs
 * times the rollup days; maxSize caps the sum. Undefined when raw history is kept forever (it
 * never settles) or no rate is known.
 */
export function projectSteadyState(
  growth: Growth,
  retention: RetentionDays,
  rollupBytesPerDay?: number,
): Projection | undefined {
  const rate = growth.lastWeek.bytesPerDay ?? growth.lastDay.bytesPerDay;
  if (retention.rawDays === null || rate === undefined) return undefined;
  const notes: string[] = [];
  const rawBytes = Math.round(rate * retention.rawDays);
  let rollupBytes: number | undefined;
  if (retention.rollupsDays === null) notes.push('rollups are kept forever: they never settle (not counted)');
  else if (rollupBytesPerDay === undefined)
    notes.push('rollup growth not measured: this database holds no rollups yet (not counted)');
  else rollupBytes = Math.round(rollupBytesPerDay * retention.rollupsDays);
  const sum = rawBytes + (rollupBytes ?? 0);
  const cap = retention.maxSizeBytes;
  const capped = cap !== null && sum > cap;
  return {
    rawBytes,
    ...(rollupBytes === undefined ? {} : { rollupBytes }),
    bytes: cap !== null && capped ? cap : sum,
    capped,
    notes,
  };
}
