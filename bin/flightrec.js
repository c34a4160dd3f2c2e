#!/usr/bin/env node
// Entry point of the flightrec command: runs the bundled CLI built by `npm run build`.
// `flightrec --version` alone is answered here from a one-line module, without loading the
// command line (commander and every command's registration): it is the command users time.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const { VERSION } = await import('../dist/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const { run } = await import('../dist/cli.js');
  await run(argv);
}
