import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.ts';
import { VERSION } from '../src/cli/version.ts';
import { memoryIo } from './helpers/memory-io.ts';

describe('flightrec command line', () => {
  it('prints its version, the same as package.json', async () => {
    const io = memoryIo();
    expect(await main(['--version'], io)).toBe(0);
    expect(io.out()).toBe(`${VERSION}\n`);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(pkg.version).toBe(VERSION);
  });

  it('answers --version alone in bin/flightrec.js (without the command line) exactly as the command line does', () => {
    const bin = fileURLToPath(new URL('../bin/flightrec.js', import.meta.url));
    const run = (...args: string[]): string => execFileSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
    expect(run('--version')).toBe(`${VERSION}\n`);
    expect(run('-V')).toBe(`${VERSION}\n`);
    // with a global option: commander answers, the same bytes
    expect(run('--no-color', '--version')).toBe(`${VERSION}\n`);
  });

  it('lists its commands in --help', async () => {
    const io = memoryIo();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.out()).toContain('info');
    expect(io.out()).toContain('--db <file-or-url>');
  });

  it('prints paths, versions and the service prefix in info', async () => {
    const io = memoryIo();
    expect(await main(['info', '--db', 'x.db'], io)).toBe(0);
    expect(io.out()).toMatch(/database\s+\/.*x\.db/);
    expect(io.out()).toContain('platform.core.admin.v2');
    expect(io.out()).toMatch(/better-sqlite3\s+12\./);
  });

  it('prints info as JSON with -o json', async () => {
    const io = memoryIo();
    expect(await main(['-o', 'json', 'info'], io)).toBe(0);
    expect(JSON.parse(io.out())).toMatchObject({ flightrec: VERSION, servicePrefix: 'platform.core.admin.v2' });
  });

  it('exits 2 on an unknown command or option', async () => {
    const io = memoryIo();
    expect(await main(['frobnicate'], io)).toBe(2);
    expect(io.err()).toContain('unknown command');
    expect(await main(['info', '--nope'], memoryIo())).toBe(2);
  });
});

describe('lazy command loading', () => {
  it('finds the command word after global options', async () => {
    const { commandWord } = await import('../src/cli/commands/index.ts');
    expect(commandWord(['--db', 'x.db', '-o', 'json', '--no-color', 'query', 'connections'])).toBe('query');
    expect(commandWord(['--cluster', 'prod', 'db', 'stats'])).toBe('db');
    expect(commandWord(['--help'])).toBeUndefined();
  });

  it('runs a command whose module alone was loaded, with its own --help', async () => {
    const io = memoryIo();
    expect(await main(['--db', 'x.db', 'filter', 'check', 'node_id = 1'], io)).toBe(0);
    expect(io.out()).toBe('node_id = 1\n');
    const help = memoryIo();
    expect(await main(['query', '--help'], help)).toBe(0);
    expect(help.out()).toContain('--order-by');
  });
});
