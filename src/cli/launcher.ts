/**
 * The command a user types to run this flightrec again, for the command lines flightrec suggests
 * (the demo's "what to try next", the next step of an error): the way it was started.
 *
 * - `flightrec` when the first `flightrec` on the PATH is this one (a global install, `npm link`);
 * - `npx flightrec` in the project that holds it (this checkout, or a project with it in its
 *   node_modules), when run from there: npx finds it there;
 * - from npx's cache: `npx flightrec-cli` (from the registry) or `npx --package=FILE flightrec`;
 * - else `node /path/to/bin/flightrec.js`.
 *
 * Never `npx flightrec` outside its project: npx would fetch and run the unrelated package of
 * that name on the public registry.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { describeInstallation, findPackageRoot } from './installation.ts';
import { shellWord } from './shell-word.ts';

/** The command npm links into a bin directory (package.json `bin`). */
export const COMMAND = 'flightrec';

/** What the launcher looks at, injected for tests. */
export interface LauncherDeps {
  readonly exists: (path: string) => boolean;
  /** the real path (symbolic links resolved); throws when there is nothing there */
  readonly realpath: (path: string) => string;
  readonly readFile: (path: string) => string;
}

const DEFAULT_DEPS: LauncherDeps = {
  exists: existsSync,
  realpath: (p) => realpathSync(p),
  readFile: (p) => readFileSync(p, 'utf8'),
};

/** Where this run happens: the working directory and the PATH of the environment. */
export interface LaunchContext {
  readonly cwd: string;
  readonly path: string | undefined;
}

/** True when `dir` is `root` or inside it. */
function within(dir: string, root: string): boolean {
  const rel = relative(root, dir);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * A PATH entry that npm or npx added for this run only (`npm start`, `npx ...`): a project's
 * node_modules/.bin, npx's cache, npm's node-gyp shim. The user's shell does not have them.
 */
function addedByNpm(dir: string): boolean {
  const d = dir.replace(/[\\/]+$/, '');
  return (
    d.endsWith(`${sep}node_modules${sep}.bin`) || d.includes(`${sep}_npx${sep}`) || d.endsWith(`${sep}node-gyp-bin`)
  );
}

/** True when the first `flightrec` on the user's PATH is this package's. */
export function onPath(root: string, path: string | undefined, deps: LauncherDeps = DEFAULT_DEPS): boolean {
  if (path === undefined || path === '') return false;
  let ours: string;
  try {
    ours = deps.realpath(join(root, 'bin', 'flightrec.js'));
  } catch {
    return false;
  }
  for (const dir of path.split(delimiter)) {
    if (dir === '' || !isAbsolute(dir) || addedByNpm(dir)) continue;
    const candidate = join(dir, COMMAND);
    if (!deps.exists(candidate)) continue;
    try {
      return deps.realpath(candidate) === ours;
    } catch {
      return false;
    }
  }
  return false;
}

/** The directory npm takes for the project at `cwd`: the nearest one upward with a package.json or node_modules. */
export function npmProjectOf(cwd: string, exists: (path: string) => boolean): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (exists(join(dir, 'package.json')) || exists(join(dir, 'node_modules'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The project that holds the package at `root` (a checkout: itself; a dependency: the directory above node_modules). */
function projectOf(root: string, kind: string): string | undefined {
  if (kind === 'repository checkout') return root;
  if (kind !== 'local') return undefined;
  const parts = root.split(sep);
  return parts.slice(0, parts.indexOf('node_modules')).join(sep) || sep;
}

/** `npx flightrec-cli` or `npx --package=FILE flightrec` for a package in npx's cache, from what npx wrote there. */
function npxCommand(root: string, deps: LauncherDeps): string | undefined {
  const parts = root.split(sep);
  const at = parts.indexOf('_npx');
  if (at < 0 || at + 1 >= parts.length) return undefined;
  const installDir = parts.slice(0, at + 2).join(sep);
  try {
    const name = (JSON.parse(deps.readFile(join(root, 'package.json'))) as { name?: unknown }).name;
    const manifest = JSON.parse(deps.readFile(join(installDir, 'package.json'))) as {
      dependencies?: Record<string, unknown>;
    };
    if (typeof name !== 'string') return undefined;
    const spec = manifest.dependencies?.[name];
    if (typeof spec !== 'string') return undefined;
    if (spec.startsWith('file:')) {
      const file = resolve(installDir, spec.slice('file:'.length));
      return `npx --package=${shellWord(file)} ${COMMAND}`;
    }
    // a version range of the registry: the package's own name runs its one command
    return /^[~^<>=*\d]|^latest$/.test(spec) ? `npx ${name}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The command that runs the flightrec installed at `root` for a user at `ctx.cwd` with `ctx.path`;
 * see the module comment.
 */
export function launcherCommand(root: string, ctx: LaunchContext, deps: LauncherDeps = DEFAULT_DEPS): string {
  if (onPath(root, ctx.path, deps)) return COMMAND;
  const { kind } = describeInstallation(root, deps.exists);
  const project = projectOf(root, kind);
  if (project !== undefined && within(ctx.cwd, project) && npmProjectOf(ctx.cwd, deps.exists) === project)
    return `npx ${COMMAND}`;
  if (kind === 'npx') {
    const npx = npxCommand(root, deps);
    if (npx !== undefined) return npx;
  }
  return `node ${shellWord(join(root, 'bin', 'flightrec.js'))}`;
}

/** The top-level command words, for `withLauncher`. */
const COMMAND_WORDS =
  'collect|check|sim|demo|import|query|diff|trends|timeline|summary|fleet|browse|filter|export|db|info|help';

/**
 * `text` with every suggested command line (`flightrec collect`, `` `flightrec db check` ``)
 * started with `launcher` instead; the product's name in prose (`a flightrec history`) stays.
 */
export function withLauncher(text: string, launcher: string): string {
  if (launcher === COMMAND) return text;
  return text.replace(
    new RegExp(`(^|[\\s\`'"(])${COMMAND}(?= (?:--?[a-z][a-z-]*[ =]\\S+ )*(?:${COMMAND_WORDS})\\b)`, 'g'),
    (_m, before: string) => `${before}${launcher}`,
  );
}

/** The launcher for a command run in `io`'s working directory with its PATH (see launcherCommand). */
export function launcherFor(io: {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}): string {
  return launcherCommand(findPackageRoot(), { cwd: io.cwd, path: io.env.PATH });
}
