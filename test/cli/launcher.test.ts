/**
 * The command flightrec suggests for running itself again (src/cli/launcher.ts): the way it was
 * started, never a bare `npx flightrec` where npx would fetch the unrelated public package.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launcherCommand, launcherFor, npmProjectOf, withLauncher, type LauncherDeps } from '../../src/cli/launcher.ts';
import { main } from '../../src/cli/main.ts';
import { memoryIo } from '../helpers/memory-io.ts';

/** A file system of exactly these files (path -> content) and symbolic links (path -> real path). */
function fs(files: Record<string, string>, links: Record<string, string> = {}): LauncherDeps {
  return {
    exists: (p) => p in files || p in links || Object.keys(files).some((f) => f.startsWith(`${p}/`)),
    realpath: (p) => {
      if (p in links) return links[p]!;
      if (p in files) return p;
      throw new Error(`ENOENT ${p}`);
    },
    readFile: (p) => {
      const text = files[p];
      if (text === undefined) throw new Error(`ENOENT ${p}`);
      return text;
    },
  };
}

const PKG = JSON.stringify({ name: 'flightrec-cli', bin: { flightrec: 'bin/flightrec.js' } });

describe('launcherCommand', () => {
  it('says flightrec when the first flightrec on the PATH is this one (a global install)', () => {
    const root = '/usr/local/lib/node_modules/flightrec-cli';
    const deps = fs(
      { [`${root}/package.json`]: PKG, [`${root}/bin/flightrec.js`]: '' },
      { '/usr/local/bin/flightrec': `${root}/bin/flightrec.js` },
    );
    expect(launcherCommand(root, { cwd: '/home/op', path: '/usr/bin:/usr/local/bin' }, deps)).toBe('flightrec');
  });

  it('does not take another flightrec earlier on the PATH, nor the bin directories npm adds for one run', () => {
    const root = '/usr/local/lib/node_modules/flightrec-cli';
    const deps = fs(
      { [`${root}/package.json`]: PKG, [`${root}/bin/flightrec.js`]: '', '/opt/other/bin/flightrec': '' },
      {
        '/usr/local/bin/flightrec': `${root}/bin/flightrec.js`,
        '/home/op/.npm/_npx/ab12/node_modules/.bin/flightrec': `${root}/bin/flightrec.js`,
      },
    );
    // the unrelated `flightrec` comes first: typing flightrec would run it
    expect(launcherCommand(root, { cwd: '/home/op', path: '/opt/other/bin:/usr/local/bin' }, deps)).toMatch(/^node /);
    // npx put its cache's bin directory on the PATH of this run only
    expect(
      launcherCommand(root, { cwd: '/home/op', path: '/home/op/.npm/_npx/ab12/node_modules/.bin:/usr/bin' }, deps),
    ).toBe(`node ${root}/bin/flightrec.js`);
  });

  it('says npx flightrec in a checkout, run from inside it (npx finds the checkout’s own bin)', () => {
    const root = '/work/flightrec';
    const deps = fs({ [`${root}/package.json`]: PKG, [`${root}/.git/HEAD`]: '', [`${root}/bin/flightrec.js`]: '' });
    expect(launcherCommand(root, { cwd: root, path: '/usr/bin' }, deps)).toBe('npx flightrec');
    expect(launcherCommand(root, { cwd: `${root}/docs`, path: '/usr/bin' }, deps)).toBe('npx flightrec');
  });

  it('says node <checkout>/bin/flightrec.js outside the checkout, where npx would fetch another package', () => {
    const root = '/work/flightrec';
    const deps = fs({ [`${root}/package.json`]: PKG, [`${root}/.git/HEAD`]: '', [`${root}/bin/flightrec.js`]: '' });
    expect(launcherCommand(root, { cwd: '/tmp/demo', path: '/usr/bin' }, deps)).toBe(
      'node /work/flightrec/bin/flightrec.js',
    );
    // a project of its own inside the checkout is another project for npx
    const nested = fs({
      [`${root}/package.json`]: PKG,
      [`${root}/.git/HEAD`]: '',
      [`${root}/examples/app/package.json`]: '{}',
    });
    expect(launcherCommand(root, { cwd: `${root}/examples/app`, path: '' }, nested)).toMatch(/^node /);
  });

  it('says npx flightrec in the project that has it as a dependency, the path of its bin elsewhere', () => {
    const root = '/srv/tools/node_modules/flightrec-cli';
    const deps = fs({ '/srv/tools/package.json': '{}', [`${root}/package.json`]: PKG });
    expect(launcherCommand(root, { cwd: '/srv/tools', path: '' }, deps)).toBe('npx flightrec');
    expect(launcherCommand(root, { cwd: '/srv', path: '' }, deps)).toBe(`node ${root}/bin/flightrec.js`);
  });

  it("says how npx was asked for it when it runs from npx's cache: the tarball, or the registry's flightrec-cli", () => {
    const cache = '/home/op/.npm/_npx/0f1e2d3c';
    const root = `${cache}/node_modules/flightrec-cli`;
    const fromFile = fs({
      [`${root}/package.json`]: PKG,
      [`${cache}/package.json`]: JSON.stringify({
        dependencies: { 'flightrec-cli': 'file:../../../../../tmp/my dir/flightrec-cli-0.1.0.tgz' },
      }),
    });
    expect(launcherCommand(root, { cwd: '/tmp', path: '' }, fromFile)).toBe(
      "npx --package='/tmp/my dir/flightrec-cli-0.1.0.tgz' flightrec",
    );
    const fromRegistry = fs({
      [`${root}/package.json`]: PKG,
      [`${cache}/package.json`]: JSON.stringify({ dependencies: { 'flightrec-cli': '^0.1.0' } }),
    });
    expect(launcherCommand(root, { cwd: '/tmp', path: '' }, fromRegistry)).toBe('npx flightrec-cli');
    // nothing readable there: the path of the bin
    expect(launcherCommand(root, { cwd: '/tmp', path: '' }, fs({}))).toBe(`node ${root}/bin/flightrec.js`);
  });

  it('quotes a path the shell would split', () => {
    const root = '/opt/my tools/flightrec';
    expect(launcherCommand(root, { cwd: '/', path: '' }, fs({}))).toBe(
      "node '/opt/my tools/flightrec/bin/flightrec.js'",
    );
  });
});

describe('npmProjectOf', () => {
  it('is the nearest directory upward with a package.json or node_modules, as npm takes it', () => {
    const deps = fs({ '/a/package.json': '{}', '/a/b/node_modules/x/package.json': '{}' });
    expect(npmProjectOf('/a/b/c', deps.exists)).toBe('/a/b');
    expect(npmProjectOf('/a/d', deps.exists)).toBe('/a');
    expect(npmProjectOf('/z', deps.exists)).toBeUndefined();
  });
});

describe('withLauncher', () => {
  it('rewrites the command lines of a message, not the name in prose', () => {
    const text =
      'no history database at /x/h.db\nto record one: flightrec --db h.db collect --base-url URL, or run flightrec demo\n' +
      'written by a newer flightrec (schema 9); run `flightrec db check`; a flightrec history';
    expect(withLauncher(text, 'npx flightrec')).toBe(
      'no history database at /x/h.db\nto record one: npx flightrec --db h.db collect --base-url URL, or run npx flightrec demo\n' +
        'written by a newer flightrec (schema 9); run `npx flightrec db check`; a flightrec history',
    );
    expect(withLauncher(text, 'flightrec')).toBe(text);
  });
});

describe('the commands flightrec suggests, as run', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('names the checkout’s bin by its path in an error outside the checkout, and plain flightrec once linked on the PATH', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flightrec-launcher-'));
    dirs.push(dir);
    const io = memoryIo({ cwd: dir });
    expect(await main(['timeline'], io)).toBe(1);
    const bin = new URL('../../bin/flightrec.js', import.meta.url).pathname;
    expect(io.err()).toContain(`to record one: node ${bin} collect --base-url URL`);
    expect(io.err()).not.toMatch(/npx flightrec/);
    // a bin directory with flightrec linked to this checkout's (as npm link does)
    mkdirSync(join(dir, 'bin'));
    symlinkSync(bin, join(dir, 'bin', 'flightrec'));
    writeFileSync(join(dir, 'flightrec-demo.db'), '');
    const linked = memoryIo({ cwd: dir, env: { PATH: `${join(dir, 'bin')}:/usr/bin` } });
    expect(launcherFor(linked)).toBe('flightrec');
    expect(await main(['timeline'], linked)).toBe(1);
    expect(linked.err()).toContain(
      'a demo recording is here: add --db flightrec-demo.db (e.g. flightrec --db flightrec-demo.db timeline)',
    );
    expect(linked.err()).toContain('to record one: flightrec collect --base-url URL');
  });
});
