/**
 * What `flightrec check` asks a cluster and how it reads the answers: one read-only call per
 * operation (the shadow topic calls only for a link that exists), each classified as answering,
 * not served under the service prefix, refused (authentication, rights, licence), unreachable or
 * failing; then what that says about the prefix, the authentication and the licence.
 */
import type { CallResult } from '../../api/client/index.ts';
import { operationPath, type OperationName, type RequestOf, type ResponseOf } from '../../api/schema/operations.ts';
import type { AdminCaller, ClusterConfig } from '../../collector/index.ts';

/** How one probe call ended. */
export type ProbeStatus = 'answers' | 'not-served' | 'refused' | 'unreachable' | 'failed' | 'skipped';

/** One probe call. */
export interface Probe {
  readonly operation: OperationName;
  /** '' or the link (link/topic) asked about */
  readonly target: string;
  readonly path: string;
  readonly status: ProbeStatus;
  /** what the answer says, in words (server text is redacted by the client) */
  readonly detail: string;
  readonly code?: string;
  readonly httpStatus?: number;
}

/** What a cluster's probes say. */
export interface ClusterCheck {
  readonly cluster: string;
  readonly baseUrl: string;
  readonly servicePrefix: string;
  readonly probes: readonly Probe[];
  /** the service prefix: served, not served, or unknown (nothing reached the server) */
  readonly prefix: string;
  readonly authentication: string;
  readonly licence: string;
  /** every probe answered (a skipped one excepted) */
  readonly ok: boolean;
}

/** The link name asked for when none is configured: a not_found answer shows the operation is served. */
export const PROBE_LINK = 'flightrec-check-no-such-link';

function classify(
  op: OperationName,
  target: string,
  prefix: string,
  res: CallResult<unknown>,
  probeLink: boolean,
): Probe {
  const path = operationPath(op, prefix);
  if (res.ok) return { operation: op, target, path, status: 'answers', detail: 'answers' };
  const e = res.error;
  const base = {
    operation: op,
    target,
    path,
    code: e.code,
    ...(e.httpStatus === undefined ? {} : { httpStatus: e.httpStatus }),
  };
  if (e.code === 'unimplemented' || (e.httpStatus === 404 && e.kind !== 'connect')) {
    return { ...base, status: 'not-served', detail: `the server does not serve ${path} (${e.httpStatus ?? e.code})` };
  }
  if (probeLink && e.kind === 'connect' && e.code === 'not_found') {
    return { ...base, status: 'answers', detail: `served (no link named ${PROBE_LINK}, as expected)` };
  }
  if (e.code === 'unauthenticated')
    return { ...base, status: 'refused', detail: `authentication required or refused: ${e.message}` };
  if (e.code === 'permission_denied')
    return {
      ...base,
      status: 'refused',
      detail: `not allowed (all six operations need superuser rights): ${e.message}`,
    };
  if (e.code === 'failed_precondition' && /licen[cs]e/i.test(e.message)) {
    return { ...base, status: 'refused', detail: `no valid enterprise licence: ${e.message}` };
  }
  if (e.kind === 'transport') return { ...base, status: 'unreachable', detail: e.message };
  return {
    ...base,
    status: 'failed',
    detail: `${e.code}${e.httpStatus === undefined ? '' : ` (HTTP ${e.httpStatus})`}: ${e.message}`,
  };
}

/** Probes every operation of one cluster through `client`, one call at a time. */
export async function probeCluster(cluster: ClusterConfig, client: AdminCaller): Promise<ClusterCheck> {
  const prefix = cluster.servicePrefix;
  const probes: Probe[] = [];
  const ask = async <N extends OperationName>(
    op: N,
    request: RequestOf<N>,
    target = '',
    probeLink = false,
  ): Promise<CallResult<ResponseOf<N>>> => {
    const res = await client.call(op, request);
    probes.push(classify(op, target, prefix, res, probeLink));
    return res;
  };
  await ask('GetUpgradeStatus', {});
  const list = await ask('ListKafkaConnections', { filter: '', orderBy: '', pageSize: 1 });
  await ask('GetIcebergStatus', { topicsFilter: [] });
  const links = cluster.shadowLinks.length > 0 ? cluster.shadowLinks : undefined;
  if (links === undefined) {
    await ask('GetShadowLink', { name: PROBE_LINK }, PROBE_LINK, true);
    for (const op of ['ListShadowTopics', 'GetShadowTopic'] as const) {
      probes.push({
        operation: op,
        target: '',
        path: operationPath(op, prefix),
        status: 'skipped',
        detail: 'no shadow link to ask about: name one with --link',
      });
    }
  }
  for (const link of links ?? []) {
    const got = await ask('GetShadowLink', { name: link.name }, link.name);
    if (!got.ok) {
      for (const op of ['ListShadowTopics', 'GetShadowTopic'] as const) {
        probes.push({
          operation: op,
          target: link.name,
          path: operationPath(op, prefix),
          status: 'skipped',
          detail: `link ${link.name} did not answer`,
        });
      }
      continue;
    }
    const listed = await ask('ListShadowTopics', { shadowLinkName: link.name }, link.name);
    const served = listed.ok ? listed.value.shadowTopics.map((t) => t.name) : [];
    const topic = link.topics[0] ?? served[0];
    if (topic === undefined) {
      probes.push({
        operation: 'GetShadowTopic',
        target: link.name,
        path: operationPath('GetShadowTopic', prefix),
        status: 'skipped',
        detail: `link ${link.name} has no shadow topic`,
      });
    } else {
      await ask('GetShadowTopic', { shadowLinkName: link.name, name: topic }, `${link.name}/${topic}`);
    }
  }
  return summarize(cluster, probes, list);
}

function summarize(cluster: ClusterConfig, probes: readonly Probe[], list: CallResult<unknown>): ClusterCheck {
  const asked = probes.filter((p) => p.status !== 'skipped');
  const count = (s: ProbeStatus): number => asked.filter((p) => p.status === s).length;
  const prefix = cluster.servicePrefix;
  let prefixText: string;
  if (count('unreachable') === asked.length)
    prefixText = `unknown: the server was not reached (${asked[0]?.detail ?? 'no call made'})`;
  else if (count('not-served') === asked.length) {
    prefixText =
      `NOT SERVED: every call answered 404 or unimplemented, so the server does not serve ${prefix}. ` +
      'A cluster serves its vendor\'s package name in place of "platform": set --service-prefix (servicePrefix in the config)';
  } else if (count('not-served') > 0) {
    prefixText = `${prefix} is served, but ${count('not-served')} operation(s) answered 404 or unimplemented: the cluster's release may predate them (GetUpgradeStatus and GetIcebergStatus came in 26.2)`;
  } else prefixText = `${prefix}: served`;
  const auth = cluster.auth;
  const who =
    auth.kind === 'basic' ? `basic as ${auth.username}` : auth.kind === 'bearer' ? 'bearer token' : 'none configured';
  let authText: string;
  if (asked.some((p) => p.code === 'unauthenticated'))
    authText = `${who}: REFUSED (401 unauthenticated)${auth.kind === 'none' ? ': the cluster requires credentials (--username, --token-env ...)' : ''}`;
  else if (asked.some((p) => p.code === 'permission_denied'))
    authText = `${who}: accepted, but NOT ALLOWED (403): the user needs superuser rights`;
  else if (count('answers') > 0) authText = `${who}: accepted`;
  else authText = `${who}: unknown (no operation answered)`;
  let licence: string;
  const listProbe = asked.find((p) => p.operation === 'ListKafkaConnections');
  if (list.ok) licence = 'valid (ListKafkaConnections answered)';
  else if (listProbe?.status === 'refused' && listProbe.code === 'failed_precondition')
    licence = `MISSING: ${listProbe.detail}`;
  else licence = 'unknown (ListKafkaConnections did not answer)';
  return {
    cluster: cluster.name,
    baseUrl: cluster.baseUrl,
    servicePrefix: prefix,
    probes,
    prefix: prefixText,
    authentication: authText,
    licence,
    ok: asked.length > 0 && count('answers') === asked.length,
  };
}
