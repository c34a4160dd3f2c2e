/**
 * Closed-form cumulative flows: a base rate that fluctuates smoothly (two slow sinusoids) and is
 * multiplied inside scenario windows. Cumulative values are pure functions of time, so counters
 * only grow and never depend on how the clock was stepped.
 */
import { unit } from './rng.ts';

/** The fluctuation of a rate: 1 + a1·sin(w1·t + p1) + a2·sin(w2·t + p2), t in seconds. */
export interface Wave {
  readonly a1: number;
  readonly w1: number;
  readonly p1: number;
  readonly a2: number;
  readonly w2: number;
  readonly p2: number;
}

/** A window (seconds since the world start) in which a rate is multiplied by `factor`. */
export interface Mod {
  readonly from: number;
  readonly to: number;
  readonly factor: number;
}

/** A wave derived from a hash; `amp` bounds the total relative amplitude (at most 0.5). */
export function makeWave(h: number, amp = 0.35): Wave {
  const TAU = 2 * Math.PI;
  const a = Math.min(amp, 0.5);
  return {
    a1: a * (0.5 + 0.2 * unit(h, 1)),
    w1: TAU / (240 + 960 * unit(h, 2)),
    p1: TAU * unit(h, 3),
    a2: a * (0.15 + 0.15 * unit(h, 4)),
    w2: TAU / (45 + 200 * unit(h, 5)),
    p2: TAU * unit(h, 6),
  };
}

/** ∫₀ˣ of the wave, in "seconds at the base rate". */
export function waveIntegral(w: Wave, x: number): number {
  return (
    x +
    (w.a1 / w.w1) * (Math.cos(w.p1) - Math.cos(w.w1 * x + w.p1)) +
    (w.a2 / w.w2) * (Math.cos(w.p2) - Math.cos(w.w2 * x + w.p2))
  );
}

/** The wave's value (relative rate) at x. */
export function waveAt(w: Wave, x: number): number {
  return 1 + w.a1 * Math.sin(w.w1 * x + w.p1) + w.a2 * Math.sin(w.w2 * x + w.p2);
}

/**
 * Turns possibly overlapping windows into disjoint ones whose factor is the product of the
 * windows covering them, so the combined rate never goes negative.
 */
export function normalizeMods(mods: readonly Mod[]): Mod[] {
  if (mods.length <= 1) return mods.filter((m) => m.to > m.from);
  const cuts = [...new Set(mods.flatMap((m) => [m.from, m.to]))].sort((a, b) => a - b);
  const out: Mod[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const from = cuts[i] as number;
    const to = cuts[i + 1] as number;
    let factor = 1;
    for (const m of mods) if (m.from <= from && m.to >= to) factor *= m.factor;
    if (factor !== 1) out.push({ from, to, factor });
  }
  return out;
}

/**
 * ∫ of the wave with the (normalized, disjoint, sorted) windows applied, from 0 to x seconds.
 * Summed piece by piece, so inside a window with factor 0 the value is exactly constant.
 */
export function flowIntegral(w: Wave, x: number, mods: readonly Mod[] | undefined): number {
  if (mods === undefined || mods.length === 0) return waveIntegral(w, x);
  let acc = 0;
  let pos = 0;
  let wPos = 0;
  for (const m of mods) {
    if (x <= m.from) break;
    const wFrom = waveIntegral(w, m.from);
    acc += wFrom - wPos;
    const end = Math.min(x, m.to);
    const wEnd = waveIntegral(w, end);
    acc += m.factor * (wEnd - wFrom);
    pos = end;
    wPos = wEnd;
    if (x <= m.to) return acc;
  }
  return acc + (pos === x ? 0 : waveIntegral(w, x) - wPos);
}

/** The multiplier in force at x. */
export function factorAt(mods: readonly Mod[] | undefined, x: number): number {
  if (mods === undefined) return 1;
  for (const m of mods) if (x >= m.from && x < m.to) return m.factor;
  return 1;
}
