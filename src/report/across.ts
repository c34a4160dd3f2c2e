/**
 * Reports over several clusters (`--cluster '*'`, `'prod-*'`): the single-cluster report run
 * once per cluster, each answer kept under its cluster's name, clusters in name order.
 */

/** One cluster's answer. */
export interface ClusterPart<T> {
  readonly cluster: string;
  readonly result: T;
}

/** Answers of several clusters, in the order given. */
export type AcrossClusters<T> = readonly ClusterPart<T>[];

/** Runs `report` once per cluster. */
export function acrossClusters<T>(clusters: readonly string[], report: (cluster: string) => T): AcrossClusters<T> {
  return clusters.map((cluster) => ({ cluster, result: report(cluster) }));
}
