/** ListKafkaConnections: the Kafka connection resource and its request/response. */
import { f, message, type Infer } from './fields.ts';
import { AuthenticationMechanism, AuthenticationState, KafkaConnectionState } from './enums.ts';

/** Request statistics over a window (the previous minute, or the whole lifetime). */
export const RequestStatistics = message('RequestStatistics', {
  fetchBytes: f.uint64('sum of bytes fetched'),
  produceBatchCount: f.uint64('number of produced batches'),
  produceBytes: f.uint64('sum of bytes produced'),
  requestCount: f.uint64('number of requests made'),
});

/** Authentication of a connection. */
export const AuthenticationInfo = message('AuthenticationInfo', {
  mechanism: f.enum(AuthenticationMechanism),
  state: f.enum(AuthenticationState),
  userPrincipal: f.string('authenticated principal'),
});

/** One sampled in-flight request. */
export const InFlightRequest = message('InFlightRequest', {
  apiKey: f.int32('Kafka API key'),
  inFlightDuration: f.duration('how long the request has been in flight'),
});

/** In-flight requests of a connection. */
export const InFlightRequests = message('InFlightRequests', {
  hasMoreRequests: f.bool('more requests are in flight than are listed'),
  sampledInFlightRequests: f.list(f.message(InFlightRequest)),
});

/** Remote TCP address. */
export const SourceAddress = message('SourceAddress', {
  ipAddress: f.string(),
  port: f.uint32(),
});

/** TLS use of a connection. */
export const TlsInfo = message('TlsInfo', { enabled: f.bool() });

/** A broker-side Kafka client connection. */
export const KafkaConnection = message('KafkaConnection', {
  apiVersions: f.map('int32', f.int32(), 'highest version seen per API key'),
  authenticationInfo: f.message(AuthenticationInfo),
  clientId: f.string('client.id of the client'),
  clientSoftwareName: f.string(),
  clientSoftwareVersion: f.string(),
  closeTime: f.timestamp('when the connection closed; the epoch while open'),
  groupId: f.string(),
  groupInstanceId: f.string(),
  groupMemberId: f.string(),
  idleDuration: f.duration('time without in-flight requests'),
  inFlightRequests: f.message(InFlightRequests),
  listenerName: f.string(),
  nodeId: f.int32('broker node id'),
  openTime: f.timestamp(),
  recentRequestStatistics: f.message(RequestStatistics, 'previous one-minute window'),
  shardId: f.uint32('broker shard'),
  source: f.message(SourceAddress),
  state: f.enum(KafkaConnectionState),
  tlsInfo: f.message(TlsInfo),
  totalRequestStatistics: f.message(RequestStatistics, 'whole lifetime'),
  transactionalId: f.string(),
  uid: f.string('connection UUID'),
});

/** ListKafkaConnections request. */
export const ListKafkaConnectionsRequest = message('ListKafkaConnectionsRequest', {
  filter: f.string(),
  orderBy: f.string(),
  pageSize: f.int32(),
});

/** ListKafkaConnections response. */
export const ListKafkaConnectionsResponse = message('ListKafkaConnectionsResponse', {
  connections: f.list(f.message(KafkaConnection)),
  totalSize: f.uint64('number of all matching connections'),
});

/** A decoded Kafka connection. */
export type KafkaConnection = Infer<typeof KafkaConnection>;
/** Decoded request statistics. */
export type RequestStatistics = Infer<typeof RequestStatistics>;
/** A decoded ListKafkaConnections request. */
export type ListKafkaConnectionsRequest = Infer<typeof ListKafkaConnectionsRequest>;
/** A decoded ListKafkaConnections response. */
export type ListKafkaConnectionsResponse = Infer<typeof ListKafkaConnectionsResponse>;
