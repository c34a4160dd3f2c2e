/** The built-in scenarios by name: YAML text embedded in modules, so the esbuild bundle carries them. */
import {
  API_FAULTS,
  AUTH_FAILURES,
  BROKER_OUTAGE,
  CONNECTION_STORM,
  CONSUMER_IDLE,
  ICEBERG,
  QUIET,
  ROLLING_UPGRADE,
  SHADOW_LINK,
} from './families.ts';
import { INCIDENT } from './incident.ts';

/** Built-in scenario name → YAML text. */
export const BUILTIN_SCENARIO_TEXT: Readonly<Record<string, string>> = {
  quiet: QUIET,
  incident: INCIDENT,
  'broker-outage': BROKER_OUTAGE,
  'connection-storm': CONNECTION_STORM,
  'auth-failures': AUTH_FAILURES,
  'consumer-idle': CONSUMER_IDLE,
  'shadow-link': SHADOW_LINK,
  'rolling-upgrade': ROLLING_UPGRADE,
  iceberg: ICEBERG,
  'api-faults': API_FAULTS,
};
