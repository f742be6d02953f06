/**
 * The decisions of a rolling restart behind HAProxy, pure (rolling-restart-run.ts carries them out). One server at a
 * time goes through three phases, each a wait on what HAProxy's runtime API shows (`show stat`, haproxy-state.ts):
 *
 *   draining    after `set server <backend>/<server> state drain`: HAProxy sends it no new request but keeps checking
 *               it (management guide 9.3, "set server": drain "only removes the server from load balancing but still
 *               allows it to be checked and to accept new persistent connections"; this backend has no persistence).
 *               Ends when its sessions reach 0, or at the drain timeout (the host's own SIGTERM drain then finishes
 *               what is in flight). Then the restart command runs.
 *   returning   after the restart command: until HAProxy has seen the host go down and come back through its own
 *               checks ("DRAIN": up, `rise` good checks of /ready, still out of rotation). Seeing it go down first is
 *               what tells a fresh UP from the old process's stale one: a host that never went down was not
 *               restarted, or HAProxy has not noticed yet.
 *   readying    after `set server … state ready`: until HAProxy shows it "UP", in rotation. Then the next server.
 *
 * Maintenance ("maint") is not used: it stops the checks (9.3), so HAProxy would not know whether the host is back
 * before it is given traffic again.
 */
import type { ServerEntry, ServerStat } from "./haproxy-state.ts";

export interface RollLimits {
  /** How long a drained server's sessions may take to end before the restart goes ahead anyway. */
  drainMs: number;
  /** How long a host may take from the start of its restart command to being back, and then to being in rotation. */
  backMs: number;
}

export type Phase =
  | { step: "draining"; since: number }
  /** `downs`: its UP→DOWN count when the restart began; `sawDown`: HAProxy has shown it down since. */
  | { step: "returning"; since: number; downs: number; sawDown: boolean }
  | { step: "readying"; since: number };

export type Move =
  | { do: "wait"; phase: Phase }
  /** Run the restart command, then wait in `next`. */
  | { do: "restart"; sessionsLeft: number; next: Phase }
  /** `set server … state ready`, then wait in `next`. */
  | { do: "ready"; next: Phase }
  | { do: "done" }
  | { do: "fail"; reason: string };

const down = (status: string) => status.startsWith("DOWN");
/** A drained server's statuses: up ("DRAIN", "DRAIN 1/2") or down ("DOWN", "DOWN 1/2"), still drained. */
export const isDrained = (status: string) => /^(DRAIN|DOWN)\b/.test(status);
const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;

/**
 * What to do next with the server being restarted, given what `show stat` shows of it now.
 *
 * @example
 * decide({ step: "draining", since: 0 }, { name: "api1", status: "DRAIN", sessions: 0, downs: 0, check: "L7OK 200" }, 50, limits)
 * // { do: "restart", sessionsLeft: 0, next: { step: "returning", since: 50, downs: 0, sawDown: false } }
 */
export function decide(phase: Phase, seen: ServerStat, now: number, limits: RollLimits): Move {
  const { name, status, check } = seen;
  const elapsed = now - phase.since;
  if (phase.step !== "readying" && !isDrained(status)) {
    return {
      do: "fail",
      reason: `${name} left the drain state (HAProxy shows it ${status}): something else changed it`,
    };
  }
  switch (phase.step) {
    case "draining":
      if (seen.sessions > 0 && elapsed < limits.drainMs) return { do: "wait", phase };
      return {
        do: "restart",
        sessionsLeft: seen.sessions,
        // Already down (the host failed while draining): that counts as the restart's going down.
        next: { step: "returning", since: now, downs: seen.downs, sawDown: down(status) },
      };
    case "returning": {
      const sawDown = phase.sawDown || down(status) || seen.downs > phase.downs;
      if (sawDown && status === "DRAIN") return { do: "ready", next: { step: "readying", since: now } };
      if (elapsed < limits.backMs) return { do: "wait", phase: { ...phase, sawDown } };
      return {
        do: "fail",
        reason: sawDown
          ? `${name} was not back within ${seconds(limits.backMs)} of its restart: HAProxy shows it ${status}, its last check ${check}`
          : `HAProxy never saw ${name} go down within ${seconds(limits.backMs)} of its restart command: did the command ` +
            "restart it? (After SIGTERM an API host answers /ready 503 for SHUTDOWN_DRAIN_MS, which must be at least " +
            "fall × inter of the balancer's checks)",
      };
    }
    case "readying":
      if (status === "UP") return { do: "done" };
      if (elapsed < limits.backMs) return { do: "wait", phase };
      return {
        do: "fail",
        reason: `${name} was put back in rotation but HAProxy shows it ${status} after ${seconds(limits.backMs)}, its last check ${check}`,
      };
  }
}

/**
 * Why `server` must not be taken out of rotation now; undefined when it may. A roll takes one server out at a time
 * and only when every server of the backend is UP and checked: a server already down (or drained, or in maintenance)
 * beside it would leave the backend with less than all but one. `settling` when every server that is not UP is
 * between two states ("UP 1/2": a check failed, as one does on a loaded machine; "DOWN 1/2"): a few checks decide,
 * and the roll may wait for them.
 */
export function refusal(
  server: string,
  stats: readonly ServerStat[],
): { reason: string; settling: boolean } | undefined {
  const refuse = (reason: string) => ({ reason, settling: false });
  if (!stats.some((stat) => stat.name === server)) return refuse(`${server} is not a server of the backend`);
  if (stats.length < 2) return refuse(`${server} is the backend's only server: taking it out would leave none`);
  const unchecked = stats.find((stat) => stat.status === "no check");
  if (unchecked) {
    return refuse(
      `${unchecked.name} has no health check ("check" on its server line): HAProxy could not say when it is back`,
    );
  }
  const notUp = stats.filter((stat) => stat.status !== "UP");
  if (notUp.length === 0) return undefined;
  return {
    reason: `every server must be UP before one is taken out, and HAProxy shows ${notUp
      .map((stat) => `${stat.name} ${stat.status}`)
      .join(", ")}`,
    settling: notUp.every((stat) => /^(UP|DOWN) \d+\/\d+$/.test(stat.status)),
  };
}

/**
 * The characters HAProxy allows in a server's name (configuration manual, "server"), and those of an IP address: none
 * means anything to a shell, so a template's placeholders can be filled in as they are.
 */
const PLAIN = /^[A-Za-z0-9._:-]+$/;

/**
 * The restart command for one server: the operator's template with `{server}` (its name in HAProxy) and `{address}`
 * (its address there) filled in. A template without either would restart the same thing for every server.
 *
 * @example
 * restartCommand("ssh {address} sudo systemctl restart service-api", { name: "api1", address: "10.0.0.11", … })
 * // "ssh 10.0.0.11 sudo systemctl restart service-api"
 */
export function restartCommand(template: string, server: Pick<ServerEntry, "name" | "address">): string {
  if (!template.includes("{server}") && !template.includes("{address}")) {
    throw new Error("the restart command must name the host it restarts: {server} or {address}");
  }
  for (const value of [server.name, server.address]) {
    if (!PLAIN.test(value)) throw new Error(`the server's name or address "${value}" is not safe in a shell command`);
  }
  return template.replaceAll("{server}", server.name).replaceAll("{address}", server.address);
}
