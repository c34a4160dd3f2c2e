/** How `flightrec info` tells the ways flightrec was installed apart, from the package's directory. */
import { describe, expect, it } from 'vitest';
import { describeInstallation, findPackageRoot } from '../../src/cli/installation.ts';

/** An `exists` that knows exactly these paths. */
const only =
  (...paths: string[]) =>
  (path: string): boolean =>
    paths.includes(path);

describe('describeInstallation', () => {
  it('reads a global install from <prefix>/lib/node_modules with <prefix>/bin/flightrec', () => {
    const i = describeInstallation('/usr/local/lib/node_modules/flightrec', only('/usr/local/bin/flightrec'), 'linux');
    expect(i).toEqual({
      kind: 'global',
      packageRoot: '/usr/local/lib/node_modules/flightrec',
      description: 'global (npm install -g, prefix /usr/local)',
    });
  });

  it('reads a global install under a scoped name', () => {
    const i = describeInstallation('/opt/p/lib/node_modules/@ops/flightrec', only('/opt/p/bin/flightrec'), 'darwin');
    expect(i.kind).toBe('global');
    expect(i.description).toBe('global (npm install -g, prefix /opt/p)');
  });

  it('reads a global install on Windows from <prefix>\\node_modules with <prefix>\\flightrec.cmd', () => {
    const root = 'C:\\Users\\op\\AppData\\Roaming\\npm\\node_modules\\flightrec';
    const i = describeInstallation(root, only('C:\\Users\\op\\AppData\\Roaming\\npm\\flightrec.cmd'), 'win32');
    expect(i.description).toBe('global (npm install -g, prefix C:\\Users\\op\\AppData\\Roaming\\npm)');
  });

  it('reads a project dependency as local, naming the project', () => {
    expect(describeInstallation('/home/op/tools/node_modules/flightrec', only(), 'linux').description).toBe(
      'local (node_modules of /home/op/tools)',
    );
    // a project that happens to live in a lib/ directory, without a linked command next to it
    expect(describeInstallation('/srv/lib/node_modules/flightrec', only(), 'linux').kind).toBe('local');
  });

  it("reads npx's cache as npx", () => {
    const i = describeInstallation('/home/op/.npm/_npx/0f1e2d3c/node_modules/flightrec', only(), 'linux');
    expect(i).toMatchObject({ kind: 'npx', description: "npx (npm's cache, /home/op/.npm/_npx/0f1e2d3c)" });
  });

  it('reads a directory outside node_modules with .git or src/ as a repository checkout', () => {
    expect(describeInstallation('/work/flightrec', only('/work/flightrec/.git'), 'linux').description).toBe(
      'repository checkout (/work/flightrec)',
    );
    expect(describeInstallation('/work/flightrec', only('/work/flightrec/src'), 'linux').kind).toBe(
      'repository checkout',
    );
  });

  it('says unknown when nothing tells', () => {
    expect(describeInstallation('/opt/flightrec', only(), 'linux')).toMatchObject({
      kind: 'unknown',
      description: 'unknown',
    });
  });
});

describe('findPackageRoot', () => {
  it('walks up to the directory holding package.json', () => {
    const exists = only('/usr/lib/node_modules/flightrec/package.json');
    expect(findPackageRoot('/usr/lib/node_modules/flightrec/dist/chunks/chunk-AB12.js', exists)).toBe(
      '/usr/lib/node_modules/flightrec',
    );
  });

  it('finds this repository from the sources', () => {
    expect(findPackageRoot()).toBe(new URL('../..', import.meta.url).pathname.replace(/\/$/, ''));
  });
});
