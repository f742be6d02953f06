/**
 * What the admin CLI finds under DATA_DIR before it opens the embedded PostgreSQL, so that it can say what it did. A
 * command run without the service's DATA_DIR (or DATABASE_URL) otherwise starts another PostgreSQL, even creates an
 * empty one, and answers from it as if nothing were wrong: `outbox:list` printed `[]` next to a service whose outbox
 * was full. The files are PostgreSQL's own, read as db/embedded.ts reads them: `PG_VERSION` exists once the data
 * folder is initialised, `postmaster.pid` names a live server (line 1: its pid).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type EmbeddedState = "running" | "stopped" | "absent";

export function embeddedState(dataDir: string): EmbeddedState {
  const pgDir = join(dataDir, "postgres");
  if (!existsSync(join(pgDir, "PG_VERSION"))) return "absent";
  let pid: number;
  try {
    pid = Number(readFileSync(join(pgDir, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return "stopped";
  }
  if (!Number.isInteger(pid) || pid <= 0) return "stopped";
  try {
    process.kill(pid, 0);
    return "running";
  } catch {
    return "stopped"; // a stale file from a crash, as db/embedded.ts judges it too
  }
}

/**
 * The line for stderr when the command could not use a running server: what it started, where, and what to set
 * when the service's data is elsewhere. Undefined when it used the running one.
 *
 * @example
 * startNotice("absent", "/srv/app/.data") // "admin: no database under /srv/app/.data (DATA_DIR): created a new, empty …"
 */
export function startNotice(state: EmbeddedState, dataDir: string): string | undefined {
  if (state === "running") return undefined;
  const elsewhere =
    "If the service runs with another DATA_DIR or with DATABASE_URL, run the admin command with the same setting.";
  if (state === "absent") {
    return `admin: no database under ${dataDir} (DATA_DIR): created a new, empty embedded PostgreSQL there for this command. ${elsewhere}`;
  }
  return `admin: no PostgreSQL was running under ${dataDir} (DATA_DIR): started the embedded one there for this command (it stops when the command ends). ${elsewhere}`;
}
