/**
 * The CPU priority of a `worker` process. Deliveries, pruning and e-mail are background work: when they share a machine
 * with the API, the API's requests should get the CPU first. Measured (`npm run bench:scale`, a backlog of 100,000
 * deliveries drained on the API's two cores): the API's p99 on `GET /v1/leads` went to 2.4–2.7× its figure before the
 * drain with the worker at the API's priority, and to 1.8–1.9× with the worker at nice 10; the drain still ran at
 * about 2,000 deliveries a second.
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
