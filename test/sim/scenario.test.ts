import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  API_FAULT_KINDS,
  BUILTIN_SCENARIOS,
  createWorld,
  EVENT_KINDS,
  EVENT_KIND_NAMES,
  loadScenario,
  parseScenario,
  ScenarioError,
} from '../../src/sim/index.ts';

const S = 1_000_000_000n;

function errorOf(fn: () => unknown): ScenarioError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ScenarioError) return err;
    throw err;
  }
  throw new Error('no ScenarioError thrown');
}

describe('scenario format', () => {
  it('ships quiet, incident and one scenario per incident family, all valid', () => {
    for (const name of [
      'quiet',
      'incident',
      'broker-outage',
      'connection-storm',
      'auth-failures',
      'consumer-idle',
      'shadow-link',
      'rolling-upgrade',
      'iceberg',
      'api-faults',
    ]) {
      expect(BUILTIN_SCENARIOS).toContain(name);
    }
    const kinds = new Set<string>();
    for (const name of BUILTIN_SCENARIOS) {
      const s = loadScenario(name);
      expect(s.name).toBe(name);
      for (const e of s.events) kinds.add(e.kind);
      createWorld({ seed: 1, connections: 10, scenario: s }); // entities resolve
    }
    expect(loadScenario('quiet').events).toEqual([]);
    expect([...kinds].sort()).toEqual([...EVENT_KIND_NAMES].sort());
  });

  it('exposes each event window in ns relative to the world start', () => {
    const s = parseScenario(
      'name: t\nevents:\n  - at: 1m30s\n    kind: broker_down\n    broker: 1\n    duration: 2m\n  - { at: 300, kind: link_paused, until: 6m }\n  - { at: 7m, kind: failover }\n',
      'inline',
    );
    const [a, b, c] = s.events;
    expect(a).toMatchObject({
      kind: 'broker_down',
      at: 90n * S,
      until: 210n * S,
      duration: 120n * S,
      broker: 1,
      line: 3,
    });
    expect(b).toMatchObject({ kind: 'link_paused', at: 300n * S, until: 360n * S, duration: 60n * S });
    expect(c?.until).toBeUndefined();
  });

  it('reports the line, column and field of every mistake', () => {
    const cases: [string, number, string, RegExp][] = [
      ['name: t\nevents:\n  - at: 1m\n    kind: broker_dwn\n', 4, 'events[0].kind', /unknown event kind "broker_dwn"/],
      [
        'name: t\nevents:\n  - at: 1m\n    kind: broker_down\n    broker: two\n',
        5,
        'events[0].broker',
        /expected an integer/,
      ],
      ['name: t\nevents:\n  - at: soon\n    kind: broker_down\n', 3, 'events[0].at', /duration/],
      ['name: t\nevents:\n  - at: 1m\n    kind: connection_storm\n', 3, 'events[0].duration', /needs a duration/],
      [
        'name: t\nevents:\n  - at: 1m\n    kind: failover\n    duration: 1m\n',
        5,
        'events[0].duration',
        /instantaneous/,
      ],
      [
        'name: t\nevents:\n  - at: 1m\n    kind: broker_down\n    colour: red\n',
        5,
        'events[0].colour',
        /unknown field/,
      ],
      [
        'name: t\nevents:\n  - at: 1m\n    kind: api_fault\n    fault: gremlins\n',
        5,
        'events[0].fault',
        /unknown fault/,
      ],
      [
        'name: t\nevents:\n  - at: 1m\n    kind: api_fault\n    fault: slow\n    operations: [ListTopics]\n',
        6,
        'events[0].operations[0]',
        /unknown operation/,
      ],
      ['name: t\nevents:\n  - at: 2m\n    kind: link_paused\n    until: 1m\n', 5, 'events[0].until', /after/],
      ['name: t\nspeed: 3\n', 2, 'speed', /unknown field/],
      ['events: []\n', 1, 'name', /missing/],
      ['name: t\nevents: [\n', 3, '', /YAML syntax/],
    ];
    for (const [text, line, field, reason] of cases) {
      const err = errorOf(() => parseScenario(text, 'case.yaml'));
      expect({ line: err.line, field: err.field }, text).toEqual({ line, field });
      expect(err.message).toMatch(reason);
      expect(err.message.startsWith(`case.yaml:${line}:`)).toBe(true);
    }
  });

  it('checks entity names against the world', () => {
    const down = parseScenario('name: t\nevents:\n  - at: 1m\n    kind: broker_down\n    broker: 9\n', 'x.yaml');
    expect(errorOf(() => createWorld({ seed: 1, scenario: down })).message).toMatch(
      /x\.yaml:3:0: events\[0\]\.broker: no broker with node id 9/,
    );
    const link = parseScenario('name: t\nevents:\n  - { at: 1m, kind: link_paused, link: nope }\n', 'y.yaml');
    expect(errorOf(() => createWorld({ seed: 1, scenario: link })).field).toBe('events[0].link');
    const topic = parseScenario('name: t\nevents:\n  - { at: 1m, kind: topic_faulted, topic: nope }\n', 'z.yaml');
    expect(errorOf(() => createWorld({ seed: 1, scenario: topic })).message).toMatch(/no shadow topic "nope"/);
  });

  it('fills entity defaults in the world view of the events', () => {
    const w = createWorld({ seed: 1, connections: 5, scenario: loadScenario('shadow-link') });
    const events = w.events();
    expect(events.every((e) => e.link === 'dr-primary')).toBe(true);
    expect(events.find((e) => e.kind === 'topic_faulted')?.topic).toBe('payments');
    const outage = createWorld({
      seed: 1,
      connections: 5,
      scenario: parseScenario('name: t\nevents:\n  - { at: 1m, kind: broker_down }\n', 't'),
    });
    expect(outage.events()[0]?.broker).toBe(2);
  });

  it('loads files by path and names unknown built-ins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'flightrec-scn-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'mine.yaml');
    writeFileSync(
      file,
      'name: mine\nworld: { brokers: 5, connections: 20 }\nevents:\n  - { at: 10s, kind: broker_down, broker: 4, duration: 1m }\n',
    );
    const s = loadScenario(file);
    expect(s.source).toBe(file);
    expect(createWorld({ seed: 1, scenario: s }).config.brokers).toEqual([0, 1, 2, 3, 4]);
    expect(errorOf(() => loadScenario('incidnet')).message).toMatch(/no built-in scenario "incidnet"/);
    expect(errorOf(() => loadScenario(join(dir, 'missing.yaml'))).message).toMatch(/ENOENT/);
  });

  it('is documented: every event kind with its fields, every fault, every built-in scenario', () => {
    const doc = readFileSync(new URL('../../docs/scenarios.md', import.meta.url), 'utf8');
    for (const [kind, spec] of Object.entries(EVENT_KINDS)) {
      expect(doc).toContain(`### \`${kind}\``);
      for (const field of Object.keys(spec.fields)) expect(doc, `${kind}.${field}`).toMatch(firstCell(field));
    }
    for (const fault of API_FAULT_KINDS) expect(doc).toMatch(firstCell(fault));
    for (const name of BUILTIN_SCENARIOS) expect(doc).toMatch(firstCell(name));
  });
});

/** A table row whose first cell is `name` in code font, padded or not (the docs are prettier-formatted). */
function firstCell(name: string): RegExp {
  return new RegExp(`^\\| \`${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\` +\\|`, 'm');
}
