/**
 * What the admin CLI finds under DATA_DIR before it opens the embedded PostgreSQL, so that it can say what it did. A
 * command run without the service's DATA_DIR (or DATABASE_URL) otherwise starts another PostgreSQL, even creates an
 * empty one, and answers from it as if nothing were wrong: `outbox:list` printed `[]` next to a service whose outbox
 * was full. What is there is db/embedded.ts's `embeddedState`, read before the database is opened.
 */
import type { embeddedState } from "../db/embedded.ts";

export type EmbeddedState = ReturnType<typeof embeddedState>;

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
