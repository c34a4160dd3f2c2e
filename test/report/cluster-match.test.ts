/** Cluster globs: what they match, what they refuse, and that hostile patterns stay linear. */
import { describe, expect, it } from 'vitest';
import {
  ClusterPatternError,
  compileClusterGlob,
  isClusterGlob,
  matchClusters,
  MAX_CLUSTER_PATTERN,
} from '../../src/report/cluster-match.ts';

const m = (p: string, name: string): boolean => compileClusterGlob(p).matches(name);

describe('cluster globs', () => {
  it('tells globs from plain names', () => {
    expect(isClusterGlob('prod-eu')).toBe(false);
    expect(isClusterGlob('prod-*')).toBe(true);
    expect(isClusterGlob('p?od')).toBe(true);
    expect(isClusterGlob('[ab]')).toBe(true);
    expect(isClusterGlob('a\\*')).toBe(false);
  });

  it('matches *, ? and sets', () => {
    expect(m('*', '')).toBe(true);
    expect(m('*', 'anything')).toBe(true);
    expect(m('prod-*', 'prod-eu')).toBe(true);
    expect(m('prod-*', 'prod-')).toBe(true);
    expect(m('prod-*', 'staging-prod-eu')).toBe(false);
    expect(m('*-eu', 'prod-eu')).toBe(true);
    expect(m('*-eu', 'prod-us')).toBe(false);
    expect(m('p?od', 'prod')).toBe(true);
    expect(m('p?od', 'pod')).toBe(false);
    expect(m('dc[12]', 'dc1')).toBe(true);
    expect(m('dc[12]', 'dc3')).toBe(false);
    expect(m('dc[0-9]', 'dc7')).toBe(true);
    expect(m('dc[!0-9]', 'dc7')).toBe(false);
    expect(m('dc[!0-9]', 'dcx')).toBe(true);
    expect(m('[]]x', ']x')).toBe(true);
    expect(m('a*b*c', 'aXXbYYc')).toBe(true);
    expect(m('a*b*c', 'aXXbYY')).toBe(false);
    expect(m('a\\*', 'a*')).toBe(true);
    expect(m('a\\*', 'ab')).toBe(false);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(m('?', '😀')).toBe(true);
    expect(m('c[😀-😂]', 'c😁')).toBe(true);
  });

  it('refuses malformed and overlong patterns', () => {
    expect(() => compileClusterGlob('dc[12')).toThrow(ClusterPatternError);
    expect(() => compileClusterGlob('a\\')).toThrow(ClusterPatternError);
    expect(() => compileClusterGlob('a'.repeat(MAX_CLUSTER_PATTERN + 1))).toThrow(/longer than/);
    expect(() => compileClusterGlob('a'.repeat(MAX_CLUSTER_PATTERN))).not.toThrow();
  });

  it('stays linear on patterns that make backtracking matchers explode', () => {
    // a backtracking matcher takes exponential steps here; the state set answers at once
    const hostile = `${'*a'.repeat(100)}*b`;
    const name = 'a'.repeat(5000);
    expect(m(hostile, name)).toBe(false);
    expect(m(hostile, `${name}b`)).toBe(true);
  });

  it('picks recorded clusters in order; a plain name only when recorded', () => {
    const recorded = ['dev', 'prod-eu', 'prod-us', 'staging'];
    expect(matchClusters('prod-*', recorded)).toEqual(['prod-eu', 'prod-us']);
    expect(matchClusters('*', recorded)).toEqual(recorded);
    expect(matchClusters('dev', recorded)).toEqual(['dev']);
    expect(matchClusters('qa', recorded)).toEqual([]);
    expect(matchClusters('qa-*', recorded)).toEqual([]);
    // a recorded name with glob characters in it is found as written
    expect(matchClusters('dc[1]', ['dc1', 'dc[1]'])).toEqual(['dc[1]']);
    expect(matchClusters('dc[1]', ['dc1', 'dc2'])).toEqual(['dc1']);
  });
});
