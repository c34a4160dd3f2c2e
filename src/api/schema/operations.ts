/** The six read-only operations of the contract: services, paths, request and response schemas. */
import type { Infer, MessageSchema } from './fields.ts';
import { ListKafkaConnectionsRequest, ListKafkaConnectionsResponse } from './connection.ts';
import { GetShadowLinkRequest, GetShadowLinkResponse } from './shadow-link.ts';
import {
  GetShadowTopicRequest,
  GetShadowTopicResponse,
  ListShadowTopicsRequest,
  ListShadowTopicsResponse,
} from './shadow-topic.ts';
import { GetUpgradeStatusRequest, UpgradeStatus } from './upgrade.ts';
import { GetIcebergStatusRequest, IcebergStatus } from './iceberg.ts';

/** The default service prefix; real clusters put their vendor word in place of `platform`. */
export const DEFAULT_SERVICE_PREFIX = 'platform.core.admin.v2';

/** One operation of the contract. */
export interface OperationSpec<Req extends MessageSchema = MessageSchema, Res extends MessageSchema = MessageSchema> {
  readonly name: string;
  readonly service: 'ClusterService' | 'ShadowLinkService' | 'FeaturesService' | 'IcebergService';
  readonly request: Req;
  readonly response: Res;
  /** the release that introduced it */
  readonly since: string;
}

const op = <Req extends MessageSchema, Res extends MessageSchema>(
  name: string,
  service: OperationSpec['service'],
  request: Req,
  response: Res,
  since: string,
): OperationSpec<Req, Res> => ({ name, service, request, response, since });

/** Every operation, keyed by its own name. */
export const OPERATIONS = {
  ListKafkaConnections: op(
    'ListKafkaConnections',
    'ClusterService',
    ListKafkaConnectionsRequest,
    ListKafkaConnectionsResponse,
    '25.3',
  ),
  GetShadowLink: op('GetShadowLink', 'ShadowLinkService', GetShadowLinkRequest, GetShadowLinkResponse, '25.3'),
  ListShadowTopics: op(
    'ListShadowTopics',
    'ShadowLinkService',
    ListShadowTopicsRequest,
    ListShadowTopicsResponse,
    '25.3',
  ),
  GetShadowTopic: op('GetShadowTopic', 'ShadowLinkService', GetShadowTopicRequest, GetShadowTopicResponse, '25.3'),
  GetUpgradeStatus: op('GetUpgradeStatus', 'FeaturesService', GetUpgradeStatusRequest, UpgradeStatus, '26.2'),
  GetIcebergStatus: op('GetIcebergStatus', 'IcebergService', GetIcebergStatusRequest, IcebergStatus, '26.2'),
} as const;

/** The name of an operation. */
export type OperationName = keyof typeof OPERATIONS;
/** All operation names, in a stable order. */
export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];
/** The decoded request and response of one operation, from its schemas. */
interface Decoded<N extends OperationName> {
  readonly request: Infer<(typeof OPERATIONS)[N]['request']>;
  readonly response: Infer<(typeof OPERATIONS)[N]['response']>;
}
/**
 * The decoded types of every operation, resolved once. An interface on purpose: `RequestOf<N>`
 * stays an indexed access for a generic N instead of a conditional type tsc would infer through
 * (too deep). A new operation fails to compile until it is listed here.
 */
export interface OperationTypes {
  readonly ListKafkaConnections: Decoded<'ListKafkaConnections'>;
  readonly GetShadowLink: Decoded<'GetShadowLink'>;
  readonly ListShadowTopics: Decoded<'ListShadowTopics'>;
  readonly GetShadowTopic: Decoded<'GetShadowTopic'>;
  readonly GetUpgradeStatus: Decoded<'GetUpgradeStatus'>;
  readonly GetIcebergStatus: Decoded<'GetIcebergStatus'>;
}
/** The decoded request type of an operation. */
export type RequestOf<N extends OperationName> = OperationTypes[N]['request'];
/** The decoded response type of an operation. */
export type ResponseOf<N extends OperationName> = OperationTypes[N]['response'];

/** True when `name` is one of the six operations. */
export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(OPERATIONS, name);
}

/** The URL path of an operation under a service prefix: `/{prefix}.{Service}/{Operation}`. */
export function operationPath(name: OperationName, servicePrefix: string = DEFAULT_SERVICE_PREFIX): string {
  return `/${servicePrefix}.${OPERATIONS[name].service}/${name}`;
}
