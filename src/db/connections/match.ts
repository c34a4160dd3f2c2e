/**
 * How the writer recognises a connection it has seen before: its identity (what cannot change
 * while it lives) and its slow attributes (a change makes a new version), compared field by field.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { slowUnknown } from './codec.ts';
import type { SlowValues } from './fields.ts';
import { generate } from '../../api/wire/record-literal.ts';
import { FIELDS, GETTERS, NO_VALUES, pathCode, slowValuesOf } from './slow.ts';

/** A connection the writer remembers. */
export interface Entity {
  readonly id: number;
  readonly uid: string;
  readonly nodeId: number;
  readonly shardId: number;
  readonly listenerName: string;
  readonly ipAddress: string;
  readonly port: number;
  readonly tls: boolean;
  readonly openTime: bigint;
  version: number;
  attrs: Attrs;
  /** frame counter of the last frame that listed it */
  seen: number;
  /** no other remembered entity has its uid */
  alone: boolean;
  /** its row in the last frame written (ClusterState.order), when it was listed there */
  row: number;
}

/** Slow attributes as the writer compares them: the values (fields.ts order), unknown fields still as JSON text. */
export interface Attrs {
  readonly values: SlowValues;
  readonly unknown: string | undefined;
  /** per map field (by position), its keys and values when every key is an array index */
  readonly indexes: readonly (IndexEntries | undefined)[];
}

/** The entries of a map whose keys are all array indices, keys ascending (their enumeration order). */
export interface IndexEntries {
  readonly keys: readonly number[];
  readonly values: readonly number[];
}

/** The open batch of a cluster. */
export interface Batch {
  readonly id: number;
  frames: number;
}

/** What the writer remembers of one cluster between polls (dropped after any failed write). */
export interface ClusterState {
  readonly byUid: Map<string, Entity[]>;
  /** the entities of the last frame written, in answer order */
  order: Entity[];
  batch: Batch | undefined;
  frameCounter: number;
  /** the key of the round being written (its frames so far are in `listed`) */
  round: string;
  /** the entities the current round listed so far, with the last poll that listed each */
  listed: Map<Entity, number>;
  /** the same for the round before (undefined: not known) */
  previous: Map<Entity, number> | undefined;
}

/** The slow attributes of a connection row. */
export function attrsOf(c: KafkaConnection): Attrs {
  return attrsOfValues(slowValuesOf(c), slowUnknown(c));
}

type IntMap = Readonly<Record<string, number>>;
const IS_MAP: readonly boolean[] = FIELDS.map((f) => f.kind === 'map');

/** Attributes with these values and unknown fields' JSON. */
export function attrsOfValues(values: SlowValues, unknown: string | undefined): Attrs {
  return { values, unknown, indexes: values.map((v, i) => (IS_MAP[i] ? indexEntries(v as IntMap) : undefined)) };
}

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,8})$/;

/** The entries of a map whose keys are all array indices, or undefined. */
export function indexEntries(m: Readonly<Record<string, number>>): IndexEntries | undefined {
  const keys: number[] = [];
  const values: number[] = [];
  for (const k in m) {
    if (!ARRAY_INDEX.test(k)) return undefined;
    keys.push(Number(k));
    values.push(m[k]!);
  }
  return { keys, values };
}

/** Same keys, values and key order as the stored map `a` (array-index keys are always in ascending order). */
function sameMap(a: IntMap, index: IndexEntries | undefined, b: IntMap): boolean {
  // the decoder shares a map whose values repeat (src/api/wire/index-map.ts): most rows hold the stored map itself
  if (a === b) return true;
  if (index !== undefined) {
    // element reads by index, then a count: no key strings made (for-in over indices makes them)
    const { keys, values } = index;
    const n = keys.length;
    for (let i = 0; i < n; i++) if (b[keys[i]!] !== values[i]) return false;
    return Object.values(b).length === n;
  }
  const ka = Object.keys(a);
  let i = 0;
  for (const k in b) {
    if (k !== ka[i] || a[k] !== b[k]) return false;
    i++;
  }
  return i === ka.length;
}

/**
 * True when the row's slow values other than maps equal these (`v`: the values and the row):
 * straight-line code generated from fields.ts where allowed, else a loop over GETTERS.
 */
const sameScalars: (v: [SlowValues, KafkaConnection | undefined]) => boolean =
  generate<(v: [SlowValues, KafkaConnection | undefined]) => boolean>(
    `const a = v[0], c = v[1];\nreturn ${
      FIELDS.flatMap((f, i) => (IS_MAP[i] ? [] : [`a[${i}] === ${pathCode(f, 'c')}`])).join(' &&\n  ') || 'true'
    };`,
  ) ??
  (([values, c]) => {
    if (c === undefined) return false;
    for (let i = 0; i < GETTERS.length; i++) if (!IS_MAP[i] && values[i] !== GETTERS[i]!(c)) return false;
    return true;
  });

/** sameScalars' argument, reused (no array per row compared). */
const PAIR: [SlowValues, KafkaConnection | undefined] = [NO_VALUES, undefined];

/** True when the row has exactly these slow attributes. */
export function sameAttrs(a: Attrs, c: KafkaConnection): boolean {
  const values = a.values;
  const pair = PAIR;
  pair[0] = values;
  pair[1] = c;
  const same = sameScalars(pair);
  pair[1] = undefined;
  if (!same) return false;
  if (a.unknown !== slowUnknown(c)) return false;
  for (let i = 0; i < GETTERS.length; i++) {
    if (IS_MAP[i] && !sameMap(values[i] as IntMap, a.indexes[i], GETTERS[i]!(c) as IntMap)) return false;
  }
  return true;
}

/** True when the row has this entity's identity. */
export function sameIdentity(e: Entity, c: KafkaConnection): boolean {
  return (
    e.nodeId === c.nodeId &&
    e.shardId === c.shardId &&
    e.openTime === c.openTime &&
    e.port === c.source.port &&
    e.ipAddress === c.source.ipAddress &&
    e.listenerName === c.listenerName &&
    e.tls === c.tlsInfo.enabled
  );
}

/** Rows of the last frame looked at for a row's entity, from where it is expected (rows that went). */
const LOOKAHEAD = 3;

/**
 * The entity of row `c` when it is among the entities of the last frame from row `expected` on
 * and no other remembered entity has its uid: then it is exactly the one the uid lookup finds,
 * found without the lookup (answers keep their order from poll to poll); else undefined.
 */
export function entityInPlace(
  last: readonly Entity[],
  expected: number,
  c: KafkaConnection,
  counter: number,
): Entity | undefined {
  const end = Math.min(last.length, expected + LOOKAHEAD);
  for (let k = expected; k < end; k++) {
    const known = last[k]!;
    if (known.uid !== c.uid) continue;
    return known.alone && known.seen !== counter && sameIdentity(known, c) ? known : undefined;
  }
  return undefined;
}

/** Placeholder attributes of an entity without a version yet (never compared: version 0). */
export const NO_ATTRS: Attrs = { values: NO_VALUES, unknown: undefined, indexes: [] };
