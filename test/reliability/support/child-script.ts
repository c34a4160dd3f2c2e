/**
 * How a test starts a TypeScript child script: bundled once with esbuild into the repository's
 * ignored `tmp/` (starting plain JavaScript takes a fraction of a second, where `--import tsx`
 * takes about one under load, which matters for 20 kills in a row), or through tsx when
 * bundling is not possible. The bundle lives inside the repository so the store still finds
 * its `drizzle/` migrations from it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const built = new Map<string, Promise<string[]>>();

async function bundle(script: string): Promise<string[]> {
  try {
    const { build } = await import('esbuild');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const external = Object.keys(pkg.dependencies);
    const dir = join(ROOT, 'tmp', 'reliability');
    mkdirSync(dir, { recursive: true });
    const result = await build({
      entryPoints: [script],
      write: false,
      outfile: join(dir, 'out.mjs'),
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      external: [...external, ...external.map((name) => `${name}/*`)],
      logLevel: 'silent',
    });
    const code = result.outputFiles[0]!.contents;
    // named by content: reused while the sources do not change, written atomically
    const outfile = join(
      dir,
      `${basename(script, '.ts')}-${createHash('sha256').update(code).digest('hex').slice(0, 12)}.mjs`,
    );
    if (!existsSync(outfile)) {
      const temp = `${outfile}.${process.pid}.tmp`;
      writeFileSync(temp, code);
      renameSync(temp, outfile);
    }
    return [outfile];
  } catch {
    return ['--import', new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href, script];
  }
}

/** The node arguments that run a script of test/reliability/support (bundled on first use). */
export function childArgs(name: string): Promise<string[]> {
  const script = fileURLToPath(new URL(`./${name}`, import.meta.url));
  let args = built.get(script);
  if (args === undefined) {
    args = bundle(script);
    built.set(script, args);
  }
  return args;
}
