/**
 * The growth block of `db stats`: bytes per day over the last day and week and, with a retention
 * (`--retention-raw`, `--retention-rollups`, or the `retention` section of `--config FILE`), the
 * size the database settles at. The arithmetic lives in src/db/maintain/growth.ts.
 */
import { parse as parseYaml } from 'yaml';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import type { z } from 'zod';
import { ConfigError, readConfigFile } from '../../collector/config-error.ts';
import { configErrorOf, durationMs as durationSchema, sizeBytes as sizeSchema } from '../../collector/config-pieces.ts';
import { formatBytes } from '../../collector/output.ts';
import {
  growthOf,
  projectSteadyState,
  type Growth,
  type Projection,
  type RetentionDays,
  type WindowGrowth,
} from '../../db/maintain/growth.ts';
import { UsageError } from '../context.ts';

/** `value` parsed by a config piece, or the ConfigError naming `key`. */
function parsePiece<T>(schema: z.ZodType<T, unknown>, key: string, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw configErrorOf(r.error, () => key);
  return r.data;
}

function durationMs(key: string, value: unknown, opts: { max: number }): number {
  return parsePiece(durationSchema({ max: opts.max }), key, value);
}

function sizeBytes(key: string, value: unknown): number {
  return parsePiece(sizeSchema(), key, value);
}

/** The retention options of `db stats`. */
export interface StatsRetentionOpts {
  retentionRaw?: string;
  retentionRollups?: string;
}

/** The longest retention accepted: 100 years. */
const MAX_RETENTION_MS = 100 * 365 * 86_400_000;
const DAY_MS = 86_400_000;

const isForever = (v: unknown): boolean =>
  v === null || v === false || (typeof v === 'string' && ['forever', 'off', 'none'].includes(v.trim().toLowerCase()));

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function days(key: string, v: unknown): number | null {
  return isForever(v) ? null : durationMs(key, v, { max: MAX_RETENTION_MS }) / DAY_MS;
}

/**
 * The retention to project with: the flags over the config file's `retention` section; undefined
 * when neither names one. Bad values are usage errors naming the flag or key.
 */
export function statsRetention(opts: StatsRetentionOpts, configPath: string | undefined): RetentionDays | undefined {
  try {
    let file: Record<string, unknown> = {};
    let where = 'retention';
    if (configPath !== undefined) {
      const { text, path } = readConfigFile(configPath);
      where = `${path}: retention`;
      let doc: unknown;
      try {
        doc = parseYaml(text);
      } catch {
        throw new ConfigError('', `${path}: not valid YAML`);
      }
      const section = isMapping(doc) ? doc.retention : undefined;
      if (section !== undefined) {
        if (!isMapping(section)) throw new ConfigError(where, 'must be a mapping (raw, rollups, maxSize)');
        file = section;
      }
    }
    const raw = opts.retentionRaw ?? file.raw;
    const rollups = opts.retentionRollups ?? file.rollups;
    if (raw === undefined && rollups === undefined) return undefined;
    return {
      rawDays:
        raw === undefined ? null : days(opts.retentionRaw === undefined ? `${where}.raw` : '--retention-raw', raw),
      rollupsDays:
        rollups === undefined
          ? null
          : days(opts.retentionRollups === undefined ? `${where}.rollups` : '--retention-rollups', rollups),
      maxSizeBytes:
        file.maxSize === undefined || isForever(file.maxSize) ? null : sizeBytes(`${where}.maxSize`, file.maxSize),
    };
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}

/** The growth block and its projection. */
export interface StatsGrowth {
  readonly growth: Growth;
  readonly retention?: RetentionDays;
  readonly projection?: Projection;
}

/** Growth and projection from the inputs read in the database. */
export function statsGrowth(inputs: Parameters<typeof growthOf>[0], retention: RetentionDays | undefined): StatsGrowth {
  const growth = growthOf(inputs);
  if (retention === undefined) return { growth };
  const projection = projectSteadyState(growth, retention);
  return { growth, retention, ...(projection === undefined ? {} : { projection }) };
}

const perDay = (w: WindowGrowth): string => (w.bytesPerDay === undefined ? '-' : `${formatBytes(w.bytesPerDay)}/day`);

function windowLine(label: string, w: WindowGrowth): string {
  const covered =
    w.coveredSeconds < w.days * 86_400 ? `, over the ${formatSpan(w.coveredSeconds)} the database covers` : '';
  return `${label.padEnd(31)}${perDay(w)} (${formatBytes(w.bytes)} in ${w.polls} polls${covered})`;
}

function formatSpan(s: number): string {
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86_400).toFixed(1)} days`;
}

const daysText = (d: number | null): string => (d === null ? 'forever' : `${Number(d.toFixed(3))}d`);

/** The text form of the growth block (starts with an empty line). */
export function formatGrowth(g: StatsGrowth): string {
  const until =
    g.growth.until === undefined
      ? 'no polls yet'
      : `windows ending at the newest poll, ${formatTimestampShort(g.growth.until)}`;
  const lines = [
    '',
    `growth (${until})`,
    windowLine('  last day', g.growth.lastDay),
    windowLine('  last week', g.growth.lastWeek),
  ];
  if (g.retention !== undefined) {
    const r = g.retention;
    const cap = r.maxSizeBytes === null ? '' : `, maxSize ${formatBytes(r.maxSizeBytes)}`;
    const head = `steady state (raw ${daysText(r.rawDays)}, rollups ${daysText(r.rollupsDays)}${cap}): `;
    const p = g.projection;
    if (p === undefined) {
      lines.push(`${head}none: ${r.rawDays === null ? 'raw history is kept forever' : 'no growth measured yet'}`);
    } else {
      const parts = [
        `raw ${formatBytes(p.rawBytes)}`,
        ...(p.rollupBytes === undefined ? [] : [`rollups ${formatBytes(p.rollupBytes)}`]),
      ];
      lines.push(`${head}${formatBytes(p.bytes)}${p.capped ? ' (capped by maxSize)' : ''} (${parts.join(', ')})`);
      for (const n of p.notes) lines.push(`  note: ${n}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The JSON form of the growth block (fields added to `db stats -o json`). */
export function growthJson(g: StatsGrowth): Record<string, unknown> {
  const w = (x: WindowGrowth): Record<string, unknown> => ({ ...x });
  return {
    growth: {
      until: g.growth.until === undefined ? null : formatTimestampShort(g.growth.until),
      lastDay: w(g.growth.lastDay),
      lastWeek: w(g.growth.lastWeek),
    },
    ...(g.retention === undefined
      ? {}
      : {
          projection: {
            retention: g.retention,
            ...(g.projection === undefined ? { bytes: null } : g.projection),
          },
        }),
  };
}
