/**
 * The `retention` keys of the configuration (`raw`, `rollups`, `maxSize`), as the file, the
 * FLIGHTREC_RETENTION_* variables and the --retention-* flags give them. Durations such as
 * `14d` or `400d`, sizes such as `20GiB`; `forever` (or `off`) keeps that history for good.
 */
import { ConfigError, durationMs, sizeBytes } from './config-draft.ts';
import { NO_RETENTION, type RetentionConfig } from './config.ts';

/** Retention as one layer gives it; null is an explicit `forever`. */
export interface RetentionDraft {
  rawMs?: number | null;
  rollupsMs?: number | null;
  maxSizeBytes?: number | null;
}

/** The longest retention accepted: 100 years. */
const MAX_RETENTION_MS = 100 * 365 * 86_400_000;

const forever = (value: unknown): boolean =>
  value === null ||
  value === false ||
  (typeof value === 'string' && ['forever', 'off', 'none'].includes(value.trim().toLowerCase()));

/** Checks a retention duration (`14d`, `400d`, `12h`), or `forever` (null). */
export function retentionDuration(key: string, value: unknown): number | null {
  if (forever(value)) return null;
  return durationMs(key, value, { max: MAX_RETENTION_MS });
}

/** Checks a retention size (`20GiB`, `500MB`), or `forever` (null). */
export function retentionSize(key: string, value: unknown): number | null {
  return forever(value) ? null : sizeBytes(key, value);
}

/** The file's `retention` mapping. */
export function parseRetention(key: string, value: unknown): RetentionDraft {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(key, 'must be a mapping (key: value)');
  const out: RetentionDraft = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'raw') out.rawMs = retentionDuration(`${key}.raw`, v);
    else if (k === 'rollups') out.rollupsMs = retentionDuration(`${key}.rollups`, v);
    else if (k === 'maxSize') out.maxSizeBytes = retentionSize(`${key}.maxSize`, v);
    else throw new ConfigError(`${key}.${k}`, 'unknown key (expected one of: raw, rollups, maxSize)');
  }
  return out;
}

/** The three values of a layer that names them as text (variables or flags), each under its own name. */
export function retentionLayer(
  values: { raw?: string | undefined; rollups?: string | undefined; maxSize?: string | undefined },
  names: { raw: string; rollups: string; maxSize: string },
): RetentionDraft | undefined {
  const out: RetentionDraft = {};
  if (values.raw !== undefined && values.raw !== '') out.rawMs = retentionDuration(names.raw, values.raw);
  if (values.rollups !== undefined && values.rollups !== '')
    out.rollupsMs = retentionDuration(names.rollups, values.rollups);
  if (values.maxSize !== undefined && values.maxSize !== '')
    out.maxSizeBytes = retentionSize(names.maxSize, values.maxSize);
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The resolved retention (null where no layer set it). */
export function finalizeRetention(d: RetentionDraft | undefined): RetentionConfig {
  return {
    rawMs: d?.rawMs ?? NO_RETENTION.rawMs,
    rollupsMs: d?.rollupsMs ?? NO_RETENTION.rollupsMs,
    maxSizeBytes: d?.maxSizeBytes ?? NO_RETENTION.maxSizeBytes,
  };
}
