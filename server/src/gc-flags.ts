/**
 * V8's garbage collector settings for the API's processes. Every request allocates short-lived objects (the parsed
 * request, rows, the answer), and every request in flight waits for each pause of the collector.
 *
 * - `--max-semi-space-size=16`: a 16 MB young generation. It is scavenged each time it fills, and a scavenge's pause
 *   grows with its size while the total time spent scavenging stays about the same: a larger young generation makes
 *   fewer, longer pauses, and the longest pauses are the tail latency of every request in flight.
 * - `--no-allocation-site-pretenuring`: V8 allocates the objects of an allocation site straight in the old generation
 *   once enough of them survive a scavenge. Under load, a request's objects are often alive at a scavenge (they wait
 *   for the database), so V8 pretenured them, although they die soon after: the old generation then filled with dead
 *   requests, and full mark-compacts, whose pauses every request in flight waits for, ran over and over.
 *
 * - `--heap-growing-percent=50`: after a full collection, the old generation may grow to 1.5× what survived it before
 *   the next. Left to itself, V8 lets it grow to several times that when collecting is cheap, as it is here (about
 *   40 MB survive): under steady load an API process's old generation reached 160 MB between full collections, and a
 *   process keeps the memory of its largest heap (270–290 MB of RSS). With it, about 180 MB, for a full collection
 *   every few seconds, each cheap for so small a heap.
 *
 * The measurements behind them: docs/performance.md, "Measurements behind the code's choices".
 *
 * V8 reads them at start: the processes the cluster forks (production's default) get the flags; a single
 * process is started with them (`npm start` does; README). An operator's own setting of each option wins.
 */
export const GC_FLAGS = [
  "--max-semi-space-size=16",
  "--no-allocation-site-pretenuring",
  "--heap-growing-percent=50",
] as const;

/** An option's name, as V8 reads it: `_` and `-` alike, without its value and without a `no-`. */
const optionName = (option: string) =>
  option
    .replace(/=.*$/, "")
    .replaceAll("_", "-")
    .replace(/^--no-/, "--");

/** `execArgv` with each of GC_FLAGS added, unless the operator set that option already. */
export function withGcFlags(execArgv: readonly string[], nodeOptions = process.env.NODE_OPTIONS): string[] {
  const given = new Set([...execArgv, ...(nodeOptions ?? "").split(/\s+/)].map(optionName));
  return [...execArgv, ...GC_FLAGS.filter((flag) => !given.has(optionName(flag)))];
}
