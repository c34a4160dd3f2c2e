/** Finds a scenario by built-in name or file path. */
import { readFileSync } from 'node:fs';
import { BUILTIN_SCENARIO_TEXT } from '../scenarios/index.ts';
import { parseScenario } from './parse.ts';
import { ScenarioError, type Scenario } from './types.ts';

/** The names of the built-in scenarios. */
export const BUILTIN_SCENARIOS = Object.keys(BUILTIN_SCENARIO_TEXT) as readonly string[];

/** Loads a built-in scenario by name, or a YAML file by path; throws ScenarioError. */
export function loadScenario(nameOrPath: string): Scenario {
  const text = BUILTIN_SCENARIO_TEXT[nameOrPath];
  if (text !== undefined) return parseScenario(text, nameOrPath);
  if (!/[/\\.]/.test(nameOrPath)) {
    throw new ScenarioError(
      nameOrPath,
      0,
      0,
      '',
      `no built-in scenario ${JSON.stringify(nameOrPath)} (built-in: ${BUILTIN_SCENARIOS.join(', ')}; or give a YAML file path)`,
    );
  }
  let yaml: string;
  try {
    yaml = readFileSync(nameOrPath, 'utf8');
  } catch (err) {
    throw new ScenarioError(
      nameOrPath,
      0,
      0,
      '',
      `cannot read scenario file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return parseScenario(yaml, nameOrPath);
}
