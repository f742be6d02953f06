/** What the primary of a cluster tells each worker process it starts (cluster.ts): its role and its index. */
export const CLUSTER_ROLE_ENV = "SERVICE_CLUSTER_ROLE";
export const CLUSTER_INDEX_ENV = "SERVICE_CLUSTER_INDEX";
