/** Built-in scenarios, one per incident family (YAML text embedded so the bundle finds them). */

/** Nothing abnormal. */
export const QUIET = `name: quiet
description: A healthy cluster. Steady traffic, connections come and go, links replicate with small lag.
duration: 30m
events: []
`;

/** A broker goes down and comes back. */
export const BROKER_OUTAGE = `name: broker-outage
description: Broker 2 goes down for three minutes; its connections close and clients reconnect elsewhere.
duration: 10m
events:
  - at: 2m
    kind: broker_down
    broker: 2
    duration: 3m
`;

/** Connection churn and authentication trouble. */
export const CONNECTION_STORM = `name: connection-storm
description: The reporting batch job opens short-lived connections in a burst.
duration: 8m
events:
  - at: 1m
    kind: connection_storm
    client: reporting-batch
    rate: 25
    lifetime: 2s
    duration: 90s
`;

/** A wave of failed authentications. */
export const AUTH_FAILURES = `name: auth-failures
description: A client with a rotated password keeps retrying on the external listener.
duration: 8m
events:
  - at: 1m
    kind: auth_failures
    principal: User:svc-legacy
    listener: external
    rate: 8
    duration: 2m
`;

/** A consumer group that stops consuming. */
export const CONSUMER_IDLE = `name: consumer-idle
description: The analytics-etl consumer group hangs; its connections stay open but go idle.
duration: 12m
events:
  - at: 2m
    kind: consumer_group_idle
    group: analytics-etl
    duration: 5m
`;

/** Everything that can happen to a shadow link. */
export const SHADOW_LINK = `name: shadow-link
description: The first shadow link is paused and resumed, a task and a topic fault, a source spike makes lag grow, the source becomes unreachable, one topic fails over and one is promoted.
duration: 25m
events:
  - at: 1m
    kind: link_paused
    duration: 2m
  - at: 4m
    kind: task_faulted
    task: consumer_offset_sync
    reason: "failed to commit offsets for group analytics-etl: NOT_COORDINATOR"
    duration: 2m
  - at: 7m
    kind: topic_faulted
    topic: payments
    duration: 2m
  - at: 10m
    kind: source_traffic_spike
    factor: 8
    duration: 3m
  - at: 15m
    kind: link_unavailable
    duration: 2m
  - at: 19m
    kind: failover
    topic: inventory
    transition: 20s
  - at: 21m
    kind: promotion
    topic: customers
    transition: 30s
`;

/** A rolling upgrade to a new release. */
export const ROLLING_UPGRADE = `name: rolling-upgrade
description: Members restart one by one on v26.1.1, the cluster becomes ready to finalize, and an operator finalizes three minutes later.
duration: 12m
events:
  - at: 2m
    kind: rolling_upgrade
    to_release: v26.1.1
    member_interval: 60s
    restart: 20s
    auto_finalize: false
    finalize_after: 3m
`;

/** Iceberg catalog trouble. */
export const ICEBERG = `name: iceberg
description: The Iceberg catalog is unreachable for four minutes, later commits of one topic stall while translation continues.
duration: 15m
events:
  - at: 2m
    kind: iceberg_catalog_unreachable
    error_code: io_error
    error_message: "failed to load table metadata: connect to catalog.internal:8181 timed out"
    duration: 4m
  - at: 8m
    kind: iceberg_commit_stall
    topic: clickstream
    duration: 3m
`;

/** The API misbehaving, one fault after the other. */
export const API_FAULTS = `name: api-faults
description: The admin API misbehaves in every way a collector must survive, one fault at a time.
duration: 10m
events:
  - { at: 1m, kind: api_fault, fault: unavailable, duration: 30s }
  - { at: 2m, kind: api_fault, fault: slow, delay: 15s, duration: 30s }
  - { at: 3m, kind: api_fault, fault: malformed, duration: 20s }
  - { at: 3m30s, kind: api_fault, fault: truncated, duration: 20s }
  - { at: 4m, kind: api_fault, fault: html, duration: 20s }
  - { at: 4m30s, kind: api_fault, fault: empty, duration: 20s }
  - { at: 5m, kind: api_fault, fault: oversize, size: 8388608, operations: [ListShadowTopics], duration: 20s }
  - { at: 5m30s, kind: api_fault, fault: too_many_requests, duration: 20s }
  - { at: 6m, kind: api_fault, fault: duplicate_uids, operations: [ListKafkaConnections], duration: 20s }
  - { at: 6m30s, kind: api_fault, fault: wrong_type, operations: [GetUpgradeStatus], duration: 20s }
  - { at: 7m, kind: api_fault, fault: licence_missing, duration: 1m }
`;
