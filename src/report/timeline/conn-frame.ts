/**
 * The connection stream as the connection detectors read it, column-wise per poll: each row's
 * slow fields (from the store, one shared object per stored version), its idle duration and its
 * sampled in-flight requests. Built from the store's lean frames, or from full rows.
 */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import type { PollRow } from '../../api/schema/resources.ts';
import { mergeRounds, roundPicks } from './frames.ts';
import { pollTime, type Frame } from './types.ts';

/** The slow fields of a connection the detectors read (a KafkaConnection has them all). */
export type ConnFacts = Readonly<
  Pick<KafkaConnection, 'uid' | 'nodeId' | 'clientId' | 'clientSoftwareName' | 'clientSoftwareVersion' | 'groupId' | 'listenerName' | 'state' | 'openTime' | 'closeTime'>
> & {
  readonly authenticationInfo: Readonly<Pick<KafkaConnection['authenticationInfo'], 'mechanism' | 'state' | 'userPrincipal'>>;
  readonly source: Readonly<Pick<KafkaConnection['source'], 'ipAddress'>>;
};

/** A sampled in-flight request as the detectors read it (the duration exact, as a number or a bigint). */
export interface InFlightFacts {
  readonly apiKey: number;
  readonly inFlightDuration: number | bigint;
}

/** One poll of connections, column-wise: `rows` holds each row's slow fields, `idle` and `inFlight` its fast values. */
export interface ConnFrame extends Frame<ConnFacts> {
  /** each row's idleDuration (exact, as a number or a bigint) */
  readonly idle: readonly (number | bigint)[];
  /** each row's sampledInFlightRequests */
  readonly inFlight: readonly (readonly InFlightFacts[])[];
}

/** One poll of connections as the store's lean read yields it (HistoryReader.connectionFrames). */
export interface StoredConnFrame {
  readonly poll: PollRow;
  readonly versions: readonly ConnFacts[];
  readonly idle: readonly (number | bigint)[];
  readonly inFlight: readonly (readonly InFlightFacts[])[];
}

/** A frame of full rows, column-wise. */
export function connFrameOfRows(f: Frame<KafkaConnection>): ConnFrame {
  return {
    poll: f.poll,
    time: f.time,
    rows: f.rows,
    idle: f.rows.map((r) => r.idleDuration),
    inFlight: f.rows.map((r) => r.inFlightRequests.sampledInFlightRequests),
  };
}

/** A lean frame of the store as a ConnFrame. */
export function connFrameOfStored(f: StoredConnFrame): ConnFrame {
  return { poll: f.poll, time: pollTime(f.poll), rows: f.versions, idle: f.idle, inFlight: f.inFlight };
}

/** The frame of a successful poll that listed no connection. */
export function emptyConnFrame(poll: PollRow): ConnFrame {
  return { poll, time: pollTime(poll), rows: [], idle: [], inFlight: [] };
}

/** Merges the calls of each ListKafkaConnections round into one frame, as mergeFanout does with full rows. */
export function mergeConnFanout(frames: Iterable<ConnFrame>): Generator<ConnFrame> {
  return mergeRounds(frames, (head, slices) => {
    const { picks, poll } = roundPicks(head, slices);
    return {
      poll,
      time: head.time,
      rows: picks.map(([f, i]) => f.rows[i]!),
      idle: picks.map(([f, i]) => f.idle[i]!),
      inFlight: picks.map(([f, i]) => f.inFlight[i]!),
    };
  });
}
