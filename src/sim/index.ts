/** The simulated cluster: a deterministic world, scripted incidents, and the Connect server. */
export {
  createWorld,
  SimWorld,
  type WorldOptions,
  type WorldDescription,
  type SimResult,
  type SimHandlers,
  type AnswerOptions,
} from './world.ts';
export { SimError, isSimError } from './errors.ts';
export { startSimServer, type SimServer, type SimServerOptions, type ServedAnswer } from './server.ts';
export type { SimAuth } from './connect.ts';
export { encodeAnswerFast, encodeAnswerBytes } from './fast-encode.ts';
export { parseScenario } from './scenario/parse.ts';
export { loadScenario, BUILTIN_SCENARIOS } from './scenario/load.ts';
export {
  ScenarioError,
  EVENT_KINDS,
  EVENT_KIND_NAMES,
  API_FAULT_KINDS,
  EMPTY_SCENARIO,
  type Scenario,
  type ScenarioEvent,
  type ScenarioWorld,
  type EventKind,
  type ApiFaultKind,
} from './scenario/types.ts';
export { DEFAULT_START_NS, MAX_START_NS, MIN_START_NS, startTimeProblem, wallClockStart } from './time.ts';
export { simClock, type SimClock } from './sim-clock.ts';
export { DEFAULT_LINKS, TASKS } from './links.ts';
export { DEFAULT_PAGE_SIZE, BYTES_PER_CONNECTION, DEFAULT_MEMORY_BUDGET } from './list-connections.ts';
export { APPS } from './catalog.ts';
