/**
 * Ink decides once, when it is first imported, whether it runs in CI (the `CI` or
 * `CONTINUOUS_INTEGRATION` variable, through is-in-ci); there it writes only the final frame, on
 * exit, which leaves an interactive terminal blank for the whole session. The browser always runs
 * on a terminal a person is looking at, so it imports its ink half with those variables hidden.
 */

/** The variables that make ink (is-in-ci) hold every frame back until exit. */
const CI_VARIABLES = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

/** Runs `load` (the dynamic import of the ink-based modules) with the CI variables hidden from `env`, then restores them. */
export async function importWithLiveRendering<T>(
  load: () => Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  const saved = CI_VARIABLES.map((name) => [name, env[name]] as const);
  for (const name of CI_VARIABLES) delete env[name];
  try {
    return await load();
  } finally {
    for (const [name, value] of saved) if (value !== undefined) env[name] = value;
  }
}
