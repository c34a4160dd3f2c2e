/**
 * docs/cli.md against the program and the tests: every command it documents (its
 * `## flightrec X` headings) is what `flightrec --help` lists, no more and no less, and each one
 * is exercised by at least one test. "Exercised" is found by a text search of the sources under
 * test/: an argv array literal that names the command (`main(['--db', db, 'query', ...])`,
 * `runCli([...])`, `program.parseAsync(['sim', ...])`), or a call of the register function of a
 * module that registers that command alone (`registerSim(program, ...)`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/context.ts';
import { main } from '../../src/cli/main.ts';
import { memoryIo } from '../helpers/memory-io.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);

/** Command paths (`query`, `db stats`) of the `## flightrec ...` headings of docs/cli.md, in order. */
function documentedCommands(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/^## flightrec (.+)$/gm)) {
    const words: string[] = [];
    for (const w of m[1]!.trim().split(/\s+/)) {
      if (!/^[a-z][a-z-]*$/.test(w)) break;
      words.push(w);
    }
    if (words.length > 0) out.push(words.join(' '));
  }
  return out;
}

/** The command names a commander help text lists under `Commands:` (without `help`). */
function helpCommands(help: string): string[] {
  const lines = help.split('\n');
  const start = lines.findIndex((l) => l.trim() === 'Commands:');
  if (start < 0) return [];
  const names: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = /^ {2}([a-z][a-z-]*)/.exec(line);
    if (m !== null && m[1] !== 'help') names.push(m[1]!);
  }
  return names;
}

async function helpOf(argv: string[]): Promise<string> {
  const io = memoryIo();
  expect(await main([...argv, '--help'], io)).toBe(0);
  return io.out();
}

/** Every .ts/.tsx file under test/, except this one. */
function testSources(dir = join(ROOT, 'test')): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...testSources(path));
    else if (/\.tsx?$/.test(entry.name) && path !== THIS_FILE) files.push(path);
  }
  return files;
}

/** The index just past a string literal opening at `i` (single-line for ' and "). */
function skipString(src: string, i: number): number {
  const quote = src[i];
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j];
    if (c === '\\') j++;
    else if (c === quote) return j + 1;
    else if (c === '\n' && quote !== '`') return j;
  }
  return src.length;
}

/** The source with comments blanked out (strings kept), so brackets and quotes in comments do not count. */
function withoutComments(src: string): string {
  let out = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === "'" || c === '"' || c === '`') {
      const end = skipString(src, i);
      out += src.slice(i, end);
      i = end;
    } else if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      i = end < 0 ? src.length : end;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      i = end < 0 ? src.length : end + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** One element of an array literal: its text, and its value when it is a plain string literal. */
interface Element {
  readonly text: string;
  readonly literal?: string;
}

function literalOf(text: string): string | undefined {
  const m = /^(['"`])((?:[^\\]|\\.)*)\1$/s.exec(text);
  if (m === null || (m[1] === '`' && m[2]!.includes('${'))) return undefined;
  return m[2]!.replace(/\\(.)/g, '$1');
}

/** The first elements of the array literal opening at `open`, or undefined when it is not one. */
function arrayElements(src: string, open: number, max = 24): Element[] | undefined {
  const out: Element[] = [];
  let i = open + 1;
  while (out.length < max) {
    while (i < src.length && /\s/.test(src[i]!)) i++;
    if (src[i] === ']') return out;
    const begin = i;
    let depth = 0;
    for (; i < src.length; i++) {
      const c = src[i]!;
      if (c === "'" || c === '"' || c === '`') {
        i = skipString(src, i) - 1;
      } else if (c === '(' || c === '[' || c === '{') {
        depth++;
      } else if (c === ')' || c === ']' || c === '}') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) {
        break;
      }
    }
    const text = src.slice(begin, i).trim();
    const literal = literalOf(text);
    out.push(literal === undefined ? { text } : { text, literal });
    if (src[i] === ',') i++;
    else if (src[i] === ']') return out;
    else return undefined;
  }
  return out;
}

/** Global options that take a value, as argv arrays in tests spell them. */
const GLOBAL_WITH_VALUE = new Set(['--db', '--config', '--cluster', '-o', '--output']);

/** The command path an argv array names (`query`, `db stats`), skipping leading global options. */
function commandOf(els: readonly Element[], groups: ReadonlySet<string>): string | undefined {
  // a table of register functions (`['sim', registerSim]`) is not a command line
  if (els.some((e) => /^register[A-Z]\w*$/.test(e.text))) return undefined;
  let i = 0;
  for (;;) {
    const lit = els[i]?.literal;
    if (lit === undefined) return undefined;
    if (!lit.startsWith('-')) break;
    i += GLOBAL_WITH_VALUE.has(lit) ? 2 : 1;
  }
  const word = els[i]!.literal!;
  if (!groups.has(word)) return word;
  const sub = els[i + 1]?.literal;
  return sub === undefined ? undefined : `${word} ${sub}`;
}

/** The command paths named by the argv array literals of a (comment-free) source. */
function argvCommands(src: string, groups: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = src.indexOf('['); i >= 0; i = src.indexOf('[', i + 1)) {
    // an expected value (`expect(names).toEqual(['sim'])`) is not a command line
    if (/\.to[A-Z]\w*\(\s*$/.test(src.slice(Math.max(0, i - 40), i))) continue;
    const els = arrayElements(src, i);
    const command = els === undefined ? undefined : commandOf(els, groups);
    if (command !== undefined) out.push(command);
  }
  return out;
}

/** The leaf command paths each `registerX` of src/cli/commands registers. */
async function registerFunctions(): Promise<Map<string, string[]>> {
  const dir = join(ROOT, 'src/cli/commands');
  const out = new Map<string, string[]>();
  const io: CliIo = memoryIo();
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith('.ts'))
    .sort()) {
    const mod = (await import(pathToFileURL(join(dir, name)).href)) as Record<string, unknown>;
    for (const [exported, value] of Object.entries(mod)) {
      if (!/^register[A-Z]/.test(exported) || exported === 'registerCommands' || typeof value !== 'function') continue;
      const program = new Command('flightrec');
      (value as (p: Command, io: CliIo, done: (c: number) => void, dispatch: unknown) => void)(
        program,
        io,
        () => undefined,
        undefined,
      );
      const leaves: string[] = [];
      const walk = (cmd: Command, path: string[]): void => {
        if (cmd.commands.length === 0) leaves.push(path.join(' '));
        for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
      };
      for (const cmd of program.commands) walk(cmd, [cmd.name()]);
      out.set(exported, leaves);
    }
  }
  return out;
}

/** For each command path, the test files that exercise it. */
async function exercisedBy(documented: readonly string[]): Promise<Map<string, Set<string>>> {
  const groups = new Set(documented.filter((c) => c.includes(' ')).map((c) => c.split(' ')[0]!));
  const registers = await registerFunctions();
  const found = new Map<string, Set<string>>(documented.map((c) => [c, new Set<string>()]));
  for (const file of testSources()) {
    const src = withoutComments(readFileSync(file, 'utf8'));
    const where = relative(ROOT, file);
    for (const command of argvCommands(src, groups)) found.get(command)?.add(where);
    for (const [fn, leaves] of registers) {
      // a module that registers several commands (db) proves none of them in particular
      if (leaves.length === 1 && new RegExp(`\\b${fn}\\s*\\(`).test(src)) found.get(leaves[0]!)?.add(where);
    }
  }
  return found;
}

const DOC = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
const DOCUMENTED = documentedCommands(DOC);

describe('docs/cli.md', () => {
  it('documents each command once', () => {
    expect(DOCUMENTED.length).toBeGreaterThan(0);
    expect(new Set(DOCUMENTED).size).toBe(DOCUMENTED.length);
  });

  it('documents exactly the commands `flightrec --help` lists', async () => {
    const top = [...new Set(DOCUMENTED.map((c) => c.split(' ')[0]!))].sort();
    expect(helpCommands(await helpOf([])).sort()).toEqual(top);
    for (const group of top) {
      const subs = DOCUMENTED.filter((c) => c.startsWith(`${group} `)).map((c) => c.slice(group.length + 1));
      if (subs.length === 0) continue;
      expect(helpCommands(await helpOf([group])).sort(), `flightrec ${group} --help`).toEqual(subs.sort());
    }
  });

  it('finds the commands of argv arrays in test sources', () => {
    const groups = new Set(['db', 'filter']);
    const parse = (src: string): string[] => argvCommands(withoutComments(src), groups);
    expect(parse(`main(['--db', db, '-o', 'json', 'query', 'polls'], io)`)).toEqual(['query']);
    expect(parse(`runCli(["--no-color", "db", "prune", "--older-than", "3d"])`)).toEqual(['db prune']);
    expect(parse('run([`filter`, `check`, x]); run([[`info`]])')).toEqual(['filter check', 'info']);
    expect(parse(`const t = [['sim', registerSim], ['db', registerDb]]`)).toEqual([]);
    expect(parse(`run([...args, 'query']); run(['db', sub]); x[0]`)).toEqual([]);
    expect(parse(`expect(names).toEqual(['sim']); // ['info']\n/* ['demo'] */`)).toEqual([]);
    // an escaped quote does not end the literal; words that are not commands are left to the caller
    expect(parse(`run(['it\\'s', 'x']); run(['export', '--out', '-'])`)).toEqual(["it's", 'export']);
  });

  let exercised = new Map<string, Set<string>>();
  beforeAll(async () => {
    exercised = await exercisedBy(DOCUMENTED);
  });

  it.each(DOCUMENTED)('`flightrec %s` is exercised by a test', (command) => {
    const files = exercised.get(command) ?? new Set<string>();
    expect([...files], `no test under test/ runs \`flightrec ${command}\``).not.toEqual([]);
  });
});
