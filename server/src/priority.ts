/**
 * The CPU priority of a `worker` process. Deliveries, pruning and e-mail are background work: when they share a machine
 * with the API, the API's requests should get the CPU first: at the API's priority, a drain of a delivery backlog
 * raises the API's tail latency, while at a lower one the drain still goes on (measured: docs/performance.md,
 * "Measurements behind the code's choices").
 *
 * A process may lower its own priority without privileges, never raise it back: an operator's own, lower priority
 * (`nice -n 15 …`) is kept. Linux sets it on the calling thread, the main one, where the worker's work runs; threads
 * the process starts afterwards (libuv's pool) inherit it.
 */
import { getPriority, setPriority } from "node:os";
import type { Logger } from "pino";

export function yieldCpu(nice: number, logger: Logger): void {
  const current = getPriority();
  if (nice <= current) return;
  try {
    setPriority(nice);
    logger.info({ nice, was: current, pid: process.pid }, "worker process yields the CPU to the API (WORKER_NICE)");
  } catch (error) {
    logger.warn({ err: error, nice }, "could not lower the worker process's CPU priority");
  }
}
