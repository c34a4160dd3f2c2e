/**
 * Cluster name globs (`*`, `?`, `[a-z]`, `[!x]`, `\*` for a literal): which recorded clusters a
 * `--cluster` pattern names. Matching simulates the pattern as a set of states over the name's
 * code points, never backtracking: time is O(name × pattern) for any pattern, and both are
 * bounded in length, so a hostile pattern such as `*a*a*a*a*b` cannot blow up.
 */

/** Longest accepted pattern, in code points. */
export const MAX_CLUSTER_PATTERN = 256;

/** A pattern that cannot be used (too long, an unclosed `[`, a trailing `\`). */
export class ClusterPatternError extends Error {
  override readonly name = 'ClusterPatternError';
}

type Token =
  | { readonly kind: 'char'; readonly cp: string }
  | { readonly kind: 'any' }
  | { readonly kind: 'star' }
  | { readonly kind: 'set'; readonly negated: boolean; readonly ranges: readonly (readonly [number, number])[] };

/** True when `text` holds an unescaped glob character (`*`, `?`, `[`): it names a set of clusters. */
export function isClusterGlob(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '*' || c === '?' || c === '[') return true;
  }
  return false;
}

function parseSet(cps: readonly string[], from: number): { token: Token; next: number } {
  let i = from;
  const negated = cps[i] === '!' || cps[i] === '^';
  if (negated) i++;
  const ranges: [number, number][] = [];
  let first = true;
  while (i < cps.length && (cps[i] !== ']' || first)) {
    first = false;
    let lo = cps[i]!;
    if (lo === '\\' && i + 1 < cps.length) lo = cps[++i]!;
    let hi = lo;
    if (cps[i + 1] === '-' && i + 2 < cps.length && cps[i + 2] !== ']') {
      hi = cps[i + 2]!;
      if (hi === '\\' && i + 3 < cps.length) hi = cps[++i + 2]!;
      i += 2;
    }
    const a = lo.codePointAt(0)!;
    const b = hi.codePointAt(0)!;
    ranges.push(a <= b ? [a, b] : [b, a]);
    i++;
  }
  if (i >= cps.length) throw new ClusterPatternError('unclosed [ in the cluster pattern');
  return { token: { kind: 'set', negated, ranges }, next: i + 1 };
}

function tokenize(pattern: string): Token[] {
  const cps = Array.from(pattern);
  if (cps.length > MAX_CLUSTER_PATTERN) {
    throw new ClusterPatternError(`the cluster pattern is longer than ${MAX_CLUSTER_PATTERN} characters`);
  }
  const out: Token[] = [];
  let i = 0;
  while (i < cps.length) {
    const c = cps[i]!;
    if (c === '\\') {
      if (i + 1 >= cps.length) throw new ClusterPatternError('the cluster pattern ends with a lone \\');
      out.push({ kind: 'char', cp: cps[i + 1]! });
      i += 2;
    } else if (c === '*') {
      // a run of stars is one star
      if (out.at(-1)?.kind !== 'star') out.push({ kind: 'star' });
      i++;
    } else if (c === '?') {
      out.push({ kind: 'any' });
      i++;
    } else if (c === '[') {
      const set = parseSet(cps, i + 1);
      out.push(set.token);
      i = set.next;
    } else {
      out.push({ kind: 'char', cp: c });
      i++;
    }
  }
  return out;
}

function accepts(t: Token, cp: string): boolean {
  switch (t.kind) {
    case 'char':
      return t.cp === cp;
    case 'any':
    case 'star':
      return true;
    case 'set': {
      const n = cp.codePointAt(0)!;
      const hit = t.ranges.some(([a, b]) => n >= a && n <= b);
      return hit !== t.negated;
    }
  }
}

/** A compiled cluster pattern. */
export interface ClusterMatcher {
  readonly pattern: string;
  matches(name: string): boolean;
}

/** Compiles a glob; throws ClusterPatternError for a pattern that is too long or malformed. */
export function compileClusterGlob(pattern: string): ClusterMatcher {
  const tokens = tokenize(pattern);
  const n = tokens.length;
  /** adds state `s` and, past every star, the states after it (a star matches the empty string) */
  const close = (set: Uint8Array, s: number): void => {
    let k = s;
    while (k <= n && set[k] === 0) {
      set[k] = 1;
      if (k < n && tokens[k]!.kind === 'star') k++;
      else break;
    }
  };
  return {
    pattern,
    matches(name: string): boolean {
      // two state sets, swapped after each character (no allocation per character)
      let cur = new Uint8Array(n + 1);
      let next = new Uint8Array(n + 1);
      close(cur, 0);
      for (const cp of name) {
        next.fill(0);
        let alive = false;
        for (let s = 0; s < n; s++) {
          if (cur[s] === 0) continue;
          const t = tokens[s]!;
          if (!accepts(t, cp)) continue;
          alive = true;
          // a star stays put (consumes another character); every other token moves on
          if (t.kind === 'star') close(next, s);
          else close(next, s + 1);
        }
        if (!alive) return false;
        [cur, next] = [next, cur];
      }
      return cur[n] === 1;
    },
  };
}

/**
 * The recorded clusters `pattern` names: a name recorded exactly as written (even one holding
 * glob characters, such as `dc[1]`), else a glob's matches in order; none when nothing matches.
 */
export function matchClusters(pattern: string, recorded: readonly string[]): string[] {
  if (recorded.includes(pattern)) return [pattern];
  if (!isClusterGlob(pattern)) return [];
  const m = compileClusterGlob(pattern);
  return recorded.filter((c) => m.matches(c));
}
