/** Columns of `connections` (ListKafkaConnections rows). */
import type { KafkaConnection } from '../../api/schema/connection.ts';
import { AuthenticationMechanism, KafkaConnectionState } from '../../api/schema/enums.ts';
import {
  formatAgeShort,
  formatBool,
  formatByteRate,
  formatBytes,
  formatCount,
  formatCountRate,
  formatDuration,
  formatTime,
  NONE,
  shortEnum,
} from '../format-units.ts';
import { cell, numberColumn, stateTone, textColumn, type ColumnModel } from './types.ts';

/** The recent statistics cover the previous one-minute window. */
const WINDOW_SECONDS = 60;

const state = (c: KafkaConnection): string => shortEnum(KafkaConnectionState, c.state);
const stateToneOf = stateTone(['OPEN'], ['ABORTING'], [], ['CLOSED']);

/** The column model of connections. */
export const connectionColumns: ColumnModel<KafkaConnection> = {
  resource: 'connections',
  label: (c) => `${cell(c.uid)} (${cell(c.clientId)} @ ${cell(c.source.ipAddress)}:${c.source.port})`,
  columns: [
    textColumn('uid', 'UID', (c) => cell(c.uid), { orderBy: 'uid', priority: 1, min: 9, identity: true }),
    numberColumn('node', 'NODE', (c) => String(c.nodeId), { orderBy: 'node_id', priority: 1 }),
    numberColumn('shard', 'SHARD', (c) => String(c.shardId), { wide: true, orderBy: 'shard_id' }),
    textColumn('client', 'CLIENT ID', (c) => cell(c.clientId), { orderBy: 'client_id', priority: 1, min: 12 }),
    textColumn('principal', 'PRINCIPAL', (c) => cell(c.authenticationInfo.userPrincipal), {
      orderBy: 'authentication_info.user_principal',
      priority: 4,
      min: 12,
    }),
    textColumn('state', 'STATE', state, { tone: (c) => stateToneOf(state(c)), orderBy: 'state', priority: 1 }),
    textColumn('group', 'GROUP', (c) => cell(c.groupId), { orderBy: 'group_id', priority: 3, min: 10 }),
    numberColumn(
      'fetchRate',
      'FETCH/S',
      (c) => formatByteRate(Number(c.recentRequestStatistics.fetchBytes) / WINDOW_SECONDS),
      {
        orderBy: 'recent_request_statistics.fetch_bytes desc',
      },
    ),
    numberColumn(
      'produceRate',
      'PRODUCE/S',
      (c) => formatByteRate(Number(c.recentRequestStatistics.produceBytes) / WINDOW_SECONDS),
      { orderBy: 'recent_request_statistics.produce_bytes desc' },
    ),
    numberColumn(
      'requestRate',
      'REQ/S',
      (c) => formatCountRate(Number(c.recentRequestStatistics.requestCount) / WINDOW_SECONDS),
      {
        wide: true,
        orderBy: 'recent_request_statistics.request_count desc',
      },
    ),
    numberColumn('idle', 'IDLE', (c) => formatDuration(c.idleDuration), { orderBy: 'idle_duration', priority: 3 }),
    numberColumn('age', 'AGE', (c, ctx) => formatAgeShort(c.openTime, ctx.now), { orderBy: 'open_time desc' }),
    textColumn('source', 'SOURCE', (c) => `${cell(c.source.ipAddress)}:${c.source.port}`, { wide: true }),
    textColumn('listener', 'LISTENER', (c) => cell(c.listenerName), { wide: true, orderBy: 'listener_name' }),
    textColumn(
      'software',
      'SOFTWARE',
      (c) =>
        c.clientSoftwareName === '' ? NONE : `${cell(c.clientSoftwareName)} ${cell(c.clientSoftwareVersion)}`.trim(),
      { wide: true, orderBy: 'client_software_name' },
    ),
    textColumn('auth', 'AUTH', (c) => shortEnum(AuthenticationMechanism, c.authenticationInfo.mechanism), {
      wide: true,
    }),
    textColumn('tls', 'TLS', (c) => formatBool(c.tlsInfo.enabled), { wide: true }),
    textColumn('member', 'MEMBER', (c) => cell(c.groupMemberId), { wide: true }),
    textColumn('txn', 'TXN ID', (c) => cell(c.transactionalId), { wide: true }),
    numberColumn('inFlight', 'IN-FLIGHT', (c) => inFlight(c), { wide: true }),
    numberColumn('requests', 'REQUESTS', (c) => formatCount(c.totalRequestStatistics.requestCount), {
      wide: true,
      orderBy: 'total_request_statistics.request_count desc',
    }),
    numberColumn('fetched', 'FETCHED', (c) => formatBytes(c.totalRequestStatistics.fetchBytes), {
      wide: true,
      orderBy: 'total_request_statistics.fetch_bytes desc',
    }),
    numberColumn('produced', 'PRODUCED', (c) => formatBytes(c.totalRequestStatistics.produceBytes), {
      wide: true,
      orderBy: 'total_request_statistics.produce_bytes desc',
    }),
    textColumn('closed', 'CLOSED', (c) => formatTime(c.closeTime), { wide: true, orderBy: 'close_time' }),
  ],
};

/** Sampled in-flight requests, with `+` when the server listed only some. */
function inFlight(c: KafkaConnection): string {
  const n = c.inFlightRequests.sampledInFlightRequests.length;
  return c.inFlightRequests.hasMoreRequests ? `${n}+` : String(n);
}
