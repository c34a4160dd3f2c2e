/**
 * How this flightrec was installed, judged from where its package directory lives: a global
 * `npm install -g`, a project's node_modules, npx's cache, or a repository checkout.
 */
import { existsSync } from 'node:fs';
import { dirname, join, posix, win32 } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The name of the command npm links into a global prefix's bin directory. */
const COMMAND = 'flightrec';

/** The ways flightrec can be installed that `info` tells apart. */
export type InstallKind = 'global' | 'local' | 'npx' | 'repository checkout' | 'unknown';

/** Where flightrec runs from and how it got there. */
export interface Installation {
  readonly kind: InstallKind;
  /** the directory holding flightrec's package.json */
  readonly packageRoot: string;
  /** one line for people: the kind and the directory that tells it (prefix, project, cache) */
  readonly description: string;
}

/** The directory holding flightrec's package.json, found upward from `fromFile` (works from src/ and from dist/). */
export function findPackageRoot(
  fromFile: string = fileURLToPath(import.meta.url),
  exists: (path: string) => boolean = existsSync,
): string {
  let dir = dirname(fromFile);
  while (!exists(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * Classifies the package directory `root` (a real path: Node resolves symbolic links of the
 * modules it loads, so a linked checkout reads as a checkout). `exists` and `platform` are
 * injected for tests.
 */
export function describeInstallation(
  root: string,
  exists: (path: string) => boolean = existsSync,
  platform: NodeJS.Platform = process.platform,
): Installation {
  const path = platform === 'win32' ? win32 : posix;
  const sep = path.sep;
  const parts = root.split(sep);
  const firstModules = parts.indexOf('node_modules');
  const result = (kind: InstallKind, where?: string): Installation => ({
    kind,
    packageRoot: root,
    description: where === undefined ? kind : `${kind} (${where})`,
  });
  if (firstModules < 0) {
    // not under node_modules: a clone (or an unpacked source archive) where `npm install` ran
    if (exists(path.join(root, '.git')) || exists(path.join(root, 'src'))) return result('repository checkout', root);
    return result('unknown');
  }
  const npx = parts.indexOf('_npx');
  if (npx >= 0 && npx < firstModules) return result('npx', `npm's cache, ${parts.slice(0, npx + 2).join(sep)}`);
  // the node_modules directory holding this package (a scoped name sits one level deeper)
  const modules = parts.lastIndexOf('node_modules');
  if (platform === 'win32') {
    // <prefix>\node_modules\flightrec, with the command at <prefix>\flightrec.cmd
    const prefix = parts.slice(0, modules).join(sep);
    if (exists(path.join(prefix, `${COMMAND}.cmd`))) return result('global', `npm install -g, prefix ${prefix}`);
  } else if (parts[modules - 1] === 'lib') {
    // <prefix>/lib/node_modules/flightrec, with the command at <prefix>/bin/flightrec
    const prefix = parts.slice(0, modules - 1).join(sep) || sep;
    if (exists(path.join(prefix, 'bin', COMMAND))) return result('global', `npm install -g, prefix ${prefix}`);
  }
  return result('local', `node_modules of ${parts.slice(0, firstModules).join(sep) || sep}`);
}
