/** "Did you mean ...?" for names typed on the command line: resources, metrics, views, operations. */
import { sanitizeForTerminal } from '../api/safe-text.ts';

/** Edit distance (insertions, deletions, substitutions, adjacent swaps) between two short words. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidates closest to `given` (case-insensitive), when close enough to be a typo; best first. */
export function closestNames(given: string, candidates: readonly string[]): string[] {
  const word = given.toLowerCase().slice(0, 64);
  if (word === '') return [];
  const scored = candidates.map((c) => {
    const name = c.toLowerCase();
    const distance =
      name.startsWith(word) || word.startsWith(name) ? Math.min(1, editDistance(word, name)) : editDistance(word, name);
    return { c, distance };
  });
  const limit = Math.max(1, Math.floor(Math.max(word.length, 3) * 0.4));
  const best = Math.min(...scored.map((s) => s.distance));
  if (best > limit) return [];
  return scored.filter((s) => s.distance === best).map((s) => s.c);
}

/** `unknown resource "conections" (did you mean connections?): expected one of a, b, c`. */
export function unknownNameMessage(what: string, given: string, candidates: readonly string[]): string {
  const close = closestNames(given, candidates);
  const hint = close.length === 0 ? '' : ` (did you mean ${close.join(' or ')}?)`;
  return `unknown ${what} ${JSON.stringify(sanitizeForTerminal(given))}${hint}: expected one of ${candidates.join(', ')}`;
}

/**
 * The options close to an unknown one: by edit distance, or those holding every word of it
 * (`--severity` -> `--min-severity`, `--window-size` -> none). Best first; `--` included.
 */
export function closestOptions(given: string, flags: readonly string[]): string[] {
  const name = (given.replace(/^-+/, '').split('=')[0] ?? '').toLowerCase();
  if (name === '') return [];
  const names = [...new Set(flags.map((f) => f.replace(/^-+/, '')))];
  const close = closestNames(name, names);
  if (close.length > 0) return close.map((n) => `--${n}`);
  const words = name.split('-').filter((w) => w !== '');
  return names.filter((n) => words.every((w) => n.split('-').includes(w))).map((n) => `--${n}`);
}
