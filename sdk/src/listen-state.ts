/**
 * The file `listen` keeps between runs: its position in the feed, the signing secret its receiver verifies with, and
 * when the feed was last reset. Losing any of them across a restart loses events: a new secret makes the receiver
 * refuse what happened meanwhile (`no_matching_signature`), and a position kept across a reset points into a feed
 * that no longer exists.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Where the state is kept without `--state`: under `.data/`, which the repository ignores (git and Biome; the old
 * default, `.service-listen.json` in the working directory, made `npm test` fail at Biome for anyone who had followed
 * the README), one file per feed, so that moving between a test and a live key keeps both positions.
 *
 * @example
 * defaultStateFile("test"); // ".data/listen/test.json"
 */
export function defaultStateFile(mode: FeedMode): string {
  return `.data/listen/${mode}.json`;
}

/** Which feed a key reads: a test key (`sk_test_…`) reaches a separate world with its own sequence. */
export type FeedMode = "test" | "live";

export interface ListenState {
  base_url: string;
  mode: FeedMode;
  /** The sequence of the last event forwarded (or skipped): the next read asks for the events after it. */
  after_sequence: number;
  /** The signing secret: kept, so that a restart signs as the receiver expects. */
  secret: string;
  /**
   * The feed's last reset (`restarted_at` of its pages; null: never reset). Absent while not known: files of earlier
   * versions, and after a 410 `EVENTS_RESET`, until the next page says.
   */
  restarted_at?: string | null;
}

/** The feed an API key reads. */
export function feedMode(apiKey: string): FeedMode {
  return apiKey.startsWith("sk_test_") ? "test" : "live";
}

/**
 * Whether a page shows the feed was reset since the state was written: both times known, and different. An unknown
 * side says nothing (an earlier version's file, or a server without test mode, whose pages have no `restarted_at`).
 */
export function feedWasReset(kept: string | null | undefined, page: string | null | undefined): boolean {
  return kept !== undefined && page !== undefined && kept !== page;
}

/** The state kept in `file`, or undefined when there is none; refuses a file of another service or feed. */
export async function readState(
  file: string,
  baseUrl: string,
  mode: FeedMode,
): Promise<Partial<ListenState> | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const state = JSON.parse(text) as Partial<ListenState>;
  if (state.base_url !== baseUrl) {
    throw new Error(`${file} keeps a position of ${state.base_url}, not of ${baseUrl}: give another --state file`);
  }
  // Files of earlier versions have no mode: they were all of live keys.
  if ((state.mode ?? "live") !== mode) {
    throw new Error(
      `${file} keeps a position in the ${state.mode ?? "live"} feed, not the ${mode} one of this key: give another --state file`,
    );
  }
  return state;
}

/**
 * Written to a temporary file and renamed over the old one, so that a kill never leaves half a state; readable by its
 * owner only, as it holds the signing secret.
 */
export async function writeState(file: string, state: ListenState): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}
