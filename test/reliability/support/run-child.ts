/** Child process: the production entry point, `run()` of src/cli/main.ts (its signal handling included). */
import { run } from '../../../src/cli/main.ts';

await run(process.argv.slice(2));
