/**
 * The connection stream as the connection detectors read it, column-wise per poll: each row's
 * slow fields (from the store, one shared object per stored version), its idle duration and its
 * sampled in-flight requests. Built from the store's lean frames, or from full rows.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import type { PollRow } from '../../api/schema/resources.ts';
import { mergeRounds, roundParts } from './frames.ts';
import { pollTime, type Frame } from './types.ts';

/** The slow fields of a connection the detectors read (a KafkaConnection has them all). */
export type ConnFacts = Readonly<
  Pick<
    KafkaConnection,
    | 'uid'
    | 'nodeId'
    | 'clientId'
    | 'clientSoftwareName'
    | 'clientSoftwareVersion'
    | 'groupId'
    | 'listenerName'
    | 'state'
    | 'openTime'
    | 'closeTime'
  >
> & {
  readonly authenticationInfo: Readonly<
    Pick<KafkaConnection['authenticationInfo'], 'mechanism' | 'state' | 'userPrincipal'>
  >;
  readonly source: Readonly<Pick<KafkaConnection['source'], 'ipAddress'>>;
};

/**
 * One poll of connections, column-wise: `rows` holds each row's slow fields, the other columns
 * its fast values. Sampled in-flight requests are flattened: row i's are entries
 * `inFlightOffsets[i]` to `inFlightOffsets[i + 1] - 1` of `inFlightApiKeys` and `inFlightDurations`.
 */
export interface ConnFrame extends Frame<ConnFacts> {
  /** each row's idleDuration (exact, as a number or a bigint) */
  readonly idle: readonly (number | bigint)[];
  /** one more than there are rows */
  readonly inFlightOffsets: ArrayLike<number>;
  readonly inFlightApiKeys: readonly number[];
  /** exact, as numbers or bigints */
  readonly inFlightDurations: readonly (number | bigint)[];
}

/** One poll of connections as the store's lean read yields it (HistoryReader.connectionFrames). */
export interface StoredConnFrame {
  readonly poll: PollRow;
  readonly versions: readonly ConnFacts[];
  readonly idle: readonly (number | bigint)[];
  readonly inFlightOffsets: ArrayLike<number>;
  readonly inFlightApiKeys: readonly number[];
  readonly inFlightDurations: readonly (number | bigint)[];
}

/** A frame of full rows, column-wise. */
export function connFrameOfRows(f: Frame<KafkaConnection>): ConnFrame {
  const offsets = new Array<number>(f.rows.length + 1);
  const apiKeys: number[] = [];
  const durations: bigint[] = [];
  f.rows.forEach((r, i) => {
    offsets[i] = apiKeys.length;
    for (const q of r.inFlightRequests.sampledInFlightRequests) {
      apiKeys.push(q.apiKey);
      durations.push(q.inFlightDuration);
    }
  });
  offsets[f.rows.length] = apiKeys.length;
  return {
    poll: f.poll,
    time: f.time,
    rows: f.rows,
    idle: f.rows.map((r) => r.idleDuration),
    inFlightOffsets: offsets,
    inFlightApiKeys: apiKeys,
    inFlightDurations: durations,
  };
}

/** A lean frame of the store as a ConnFrame. */
export function connFrameOfStored(f: StoredConnFrame): ConnFrame {
  return {
    poll: f.poll,
    time: pollTime(f.poll),
    rows: f.versions,
    idle: f.idle,
    inFlightOffsets: f.inFlightOffsets,
    inFlightApiKeys: f.inFlightApiKeys,
    inFlightDurations: f.inFlightDurations,
  };
}

/** The frame of a successful poll that listed no connection. */
export function emptyConnFrame(poll: PollRow): ConnFrame {
  return {
    poll,
    time: pollTime(poll),
    rows: [],
    idle: [],
    inFlightOffsets: [0],
    inFlightApiKeys: [],
    inFlightDurations: [],
  };
}

/** Merges the calls of each ListKafkaConnections round into one frame, as mergeFanout does with full rows. */
export function mergeConnFanout(frames: Iterable<ConnFrame>): Generator<ConnFrame> {
  return mergeRounds(frames, (head, slices) => {
    const { parts, poll } = roundParts(head, slices);
    // filled by push: packed arrays, as the detectors read them
    const rows: ConnFacts[] = [];
    const idle: (number | bigint)[] = [];
    const offsets: number[] = [];
    const apiKeys: number[] = [];
    const durations: (number | bigint)[] = [];
    for (const { frame: f, rows: taken } of parts) {
      const { rows: fRows, idle: fIdle, inFlightOffsets, inFlightApiKeys, inFlightDurations } = f;
      for (const i of taken) {
        rows.push(fRows[i]!);
        idle.push(fIdle[i]!);
        offsets.push(apiKeys.length);
        for (let q = inFlightOffsets[i]!; q < inFlightOffsets[i + 1]!; q++) {
          apiKeys.push(inFlightApiKeys[q]!);
          durations.push(inFlightDurations[q]!);
        }
      }
    }
    offsets.push(apiKeys.length);
    return {
      poll,
      time: head.time,
      rows,
      idle,
      inFlightOffsets: offsets,
      inFlightApiKeys: apiKeys,
      inFlightDurations: durations,
    };
  });
}
