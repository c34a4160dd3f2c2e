/** Lexer and parser: positions, n-ary nodes, implicit AND, limits, error rendering. */
import { describe, expect, it } from 'vitest';
import {
  checkFilter,
  compileFilter,
  FilterError,
  MAX_DEPTH,
  parseFilter,
  SERVER_MAX_LENGTH,
} from '../../src/filter/index.ts';
import { Lexer } from '../../src/filter/lexer.ts';

describe('lexer', () => {
  it('gives every token its exact span', () => {
    const lx = new Lexer('a.b_c>=  (x) :', 'extended');
    const seen: [string, number, number][] = [];
    for (let t = lx.next(); t.kind !== 'eof'; t = lx.next()) seen.push([t.kind, t.start, t.end]);
    expect(seen).toEqual([
      ['word', 0, 5],
      ['op', 5, 7],
      ['lparen', 9, 10],
      ['word', 10, 11],
      ['rparen', 11, 12],
      ['op', 13, 14],
    ]);
  });

  it('reads literals after an operator with their spans and decoded bytes', () => {
    const lx = new Lexer('x = "a\\x41\\u"', 'server');
    lx.next();
    const op = lx.next();
    expect(() => lx.value(op)).toThrow(/invalid escape \\u/);
    const ok = new Lexer('x = "a\\x41\\t" AND', 'server');
    ok.next();
    const lit = ok.value(ok.next());
    expect([lit.start, lit.end, lit.text, lit.quoted]).toEqual([4, 13, 'aA\t', true]);
  });
});

describe('parser', () => {
  it('puts exact positions on every node', () => {
    const ast = parseFilter('node_id = 1 AND (a = "x" OR -b:*)', 'extended');
    expect(ast).toMatchObject({
      kind: 'and',
      implicit: false,
      start: 0,
      end: 33,
      children: [
        {
          kind: 'restriction',
          start: 0,
          end: 11,
          path: { start: 0, end: 7 },
          opSpan: { start: 8, end: 9 },
          value: { start: 10, end: 11 },
        },
        {
          kind: 'or',
          start: 16,
          end: 33,
          children: [
            { kind: 'restriction', start: 17, end: 24, value: { start: 21, end: 24, raw: 'x' } },
            { kind: 'not', start: 28, end: 32, child: { kind: 'restriction', start: 29, end: 32, op: ':' } },
          ],
        },
      ],
    });
  });

  it('keeps implicit AND distinct from explicit AND, and flattens chains into n-ary nodes', () => {
    const ast = parseFilter('a = 1 b = 2 AND c = 3 AND d = 4 OR e = 5 OR f = 6', 'extended');
    expect(ast?.kind).toBe('and');
    if (ast?.kind !== 'and') return;
    expect(ast.implicit).toBe(false);
    expect(ast.children.map((c) => c.kind)).toEqual(['and', 'restriction', 'or']);
    expect(ast.children[0]).toMatchObject({ kind: 'and', implicit: true });
    expect((ast.children[2] as unknown as { children: unknown[] }).children).toHaveLength(3);
  });

  it('parses a 10,000-term AND chain without deep recursion, and evaluates it', () => {
    const expr = Array.from({ length: 10_000 }, (_, i) => `node_id != ${i + 10}`).join(' AND ');
    const f = compileFilter(expr, { resource: 'connections', dialect: 'extended' });
    expect((f.ast as unknown as { children: unknown[] }).children).toHaveLength(10_000);
    expect(f.matches({ nodeId: 1 })).toBe(true);
    expect(f.matches({ nodeId: 9_999 })).toBe(false);
    const implicit = Array.from({ length: 10_000 }, (_, i) => `node_id != ${i + 10}`).join(' ');
    expect(compileFilter(implicit, { resource: 'connections', dialect: 'extended' }).matches({ nodeId: 1 })).toBe(true);
    const server = Array.from({ length: 50 }, (_, i) => `node_id != ${i}`).join(' AND ');
    expect(compileFilter(server, { resource: 'connections', dialect: 'server' }).matches({ nodeId: 50 })).toBe(true);
  });

  it('limits nesting depth with a FilterError, never a stack overflow', () => {
    const ok = `${'('.repeat(MAX_DEPTH)}node_id = 1${')'.repeat(MAX_DEPTH)}`;
    expect(checkFilter(ok, { resource: 'connections', dialect: 'extended' }).ok).toBe(true);
    for (const deep of [
      `${'('.repeat(MAX_DEPTH + 1)}node_id = 1${')'.repeat(MAX_DEPTH + 1)}`,
      `${'('.repeat(100_000)}node_id = 1`,
      `${'NOT ('.repeat(60)}node_id = 1${')'.repeat(60)}`,
    ]) {
      const r = checkFilter(deep, { resource: 'connections', dialect: 'extended' });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.message).toContain('nested too deeply');
    }
  });

  it('counts the server length limit in characters (code points)', () => {
    const body = 'client_id = ""';
    const fill = (n: number, ch: string) => `client_id = "${ch.repeat(n - body.length)}"`;
    expect(checkFilter(fill(SERVER_MAX_LENGTH, '🚀'), { resource: 'connections', dialect: 'server' }).ok).toBe(true);
    const r = checkFilter(fill(SERVER_MAX_LENGTH + 1, 'é'), { resource: 'connections', dialect: 'server' });
    expect(r.ok).toBe(false);
    expect(checkFilter(fill(SERVER_MAX_LENGTH + 1, 'é'), { resource: 'connections', dialect: 'extended' }).ok).toBe(
      true,
    );
  });
});

describe('FilterError', () => {
  it('renders the message, the input, a caret line under the span and the suggestion', () => {
    const r = checkFilter('state = OPEN AND nod_id = 1', { resource: 'connections', dialect: 'server' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(FilterError);
    expect(r.error.render()).toBe(
      [
        'unknown field "nod_id" in connections',
        '  state = OPEN AND nod_id = 1',
        '                   ^^^^^^',
        '  hint: did you mean node_id?',
      ].join('\n'),
    );
  });

  it('aligns the caret after wide code points and shows control characters visibly', () => {
    const r = checkFilter('client_id = "🚀" \tAND x = 1', { resource: 'connections', dialect: 'server' });
    if (r.ok) throw new Error('expected an error');
    const [, line, caret] = r.error.render().split('\n');
    expect(line).toBe('  client_id = "🚀" ␉AND x = 1');
    expect(caret).toBe(`  ${' '.repeat(16)}^`);
  });

  it('shows a window around the error in long input', () => {
    const expr = `${'node_id = 1 AND '.repeat(40)}nod = 1`;
    const r = checkFilter(expr, { resource: 'connections', dialect: 'server' });
    if (r.ok) throw new Error('expected an error');
    const [, line, caret] = r.error.render().split('\n');
    expect(line?.startsWith('  …')).toBe(true);
    expect(line?.length).toBeLessThan(110);
    expect(line?.slice(caret?.indexOf('^') ?? 0, (caret?.indexOf('^') ?? 0) + 3)).toBe('nod');
  });

  it('puts the caret at the end for a missing value', () => {
    const r = checkFilter('node_id =', { resource: 'connections', dialect: 'server' });
    if (r.ok) throw new Error('expected an error');
    expect([r.error.start, r.error.end]).toEqual([9, 9]);
    expect(r.error.render().split('\n')[2]).toBe(`  ${' '.repeat(9)}^`);
  });
});
