/** The demo's scenario: several overlapping incidents. */
export const INCIDENT = `name: incident
description: Several overlapping incidents for the demo. A broker outage, a connection storm and failed logins, a source spike that makes shadow lag grow, a faulted task, an idle consumer group, an unreachable Iceberg catalog, then a rolling upgrade.
duration: 20m
events:
  - at: 2m
    kind: broker_down
    broker: 2
    duration: 3m
  - at: 3m
    kind: connection_storm
    client: reporting-batch
    rate: 15
    duration: 2m
  - at: 4m
    kind: auth_failures
    principal: User:svc-legacy
    rate: 5
    duration: 3m
  - at: 5m
    kind: source_traffic_spike
    factor: 8
    duration: 4m
  - at: 6m
    kind: task_faulted
    task: source_topic_sync
    broker: 1
    reason: "fetch from source failed: OFFSET_OUT_OF_RANGE on orders/3"
    duration: 3m
  - at: 7m
    kind: consumer_group_idle
    group: analytics-etl
    duration: 4m
  - at: 8m
    kind: iceberg_catalog_unreachable
    error_code: io_error
    duration: 4m
  - at: 11m
    kind: topic_faulted
    topic: payments
    duration: 2m
  - at: 13m
    kind: rolling_upgrade
    to_release: v26.1.1
    member_interval: 60s
    restart: 20s
    auto_finalize: true
`;
