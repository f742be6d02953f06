/**
 * Where the CPU goes while bench:scale drains its backlog (Linux /proc): the machine as a whole, this benchmark's
 * processes, and the PostgreSQL backends of its database. The machine is shared, so the part no process of the run
 * used is printed too: it tells a slow figure caused by the code from one caused by the neighbours.
 */
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import type pg from "pg";
import { cpuMs, cpuSpent } from "./load.ts";

/** Busy CPU time of the whole machine so far, in ms (/proc/stat: all but idle and iowait, in 10 ms ticks). */
function machineBusyMs(): number {
  const [, ...fields] = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/);
  const ticks = fields.map(Number);
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  return (total - (ticks[3] ?? 0) - (ticks[4] ?? 0)) * 10;
}

const cpuOrZero = (pid: number) => {
  try {
    return cpuMs(pid);
  } catch {
    return 0; // ended meanwhile
  }
};

export interface CpuSnapshot {
  at: number;
  machine: number;
  processes: Map<string, number>;
  backends: Map<number, number>;
}

/** A snapshot of the named processes and of every backend connected to the pool's database. */
export async function snapshot(pool: pg.Pool, processes: Record<string, number | undefined>): Promise<CpuSnapshot> {
  const { rows } = await pool.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
  );
  return {
    at: performance.now(),
    machine: machineBusyMs(),
    processes: new Map(Object.entries(processes).map(([name, pid]) => [name, pid ? cpuOrZero(pid) : 0])),
    backends: new Map(rows.map((row) => [row.pid, cpuOrZero(row.pid)])),
  };
}

/** CPU ms used between two snapshots: by each named process, by the database's backends, by everything else. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot) {
  const processes = [...after.processes].map(([name, ms]) => [name, ms - (before.processes.get(name) ?? 0)] as const);
  const backends = cpuSpent(before.backends, after.backends);
  const machine = after.machine - before.machine;
  const ours = processes.reduce((sum, [, ms]) => sum + ms, 0) + backends;
  const wallMs = after.at - before.at;
  return {
    processes: Object.fromEntries(processes),
    backends,
    others: Math.max(0, machine - ours),
    machine,
    /** Busy share of every core of the machine over the interval. */
    busy: machine / (wallMs * availableParallelism()),
    wallMs,
  };
}

/** One line: the machine's busy share, then CPU ms of each part (per `unit` when given, e.g. per delivery). */
export function describeCpu(usage: ReturnType<typeof cpuBetween>, unit?: { count: number; name: string }): string {
  const per = (ms: number) =>
    unit ? `${(ms / Math.max(1, unit.count)).toFixed(2)} ms/${unit.name}` : `${(ms / 1000).toFixed(1)} s`;
  const parts = [
    ...Object.entries(usage.processes).map(([name, ms]) => `${name} ${per(ms)}`),
    `PostgreSQL backends of the run ${per(usage.backends)}`,
    `other processes on the machine ${per(usage.others)}`,
  ];
  return `CPU over ${(usage.wallMs / 1000).toFixed(1)} s, machine ${(usage.busy * 100).toFixed(0)} % busy: ${parts.join(", ")}`;
}
