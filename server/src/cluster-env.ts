/** What the primary of a cluster tells each worker process it starts (cluster.ts): its role and its index. */
export const CLUSTER_ROLE_ENV = "SERVICE_CLUSTER_ROLE";
export const CLUSTER_INDEX_ENV = "SERVICE_CLUSTER_INDEX";

/**
 * The name of this process in its cluster (`api-0`, `worker-2`), from what its primary told it; undefined for a process
 * that runs alone.
 */
export function clusterProcessName(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const role = env[CLUSTER_ROLE_ENV];
  return role === undefined ? undefined : `${role}-${env[CLUSTER_INDEX_ENV] ?? "0"}`;
}
