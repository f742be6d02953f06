/**
 * V8's garbage collector settings for the API's processes. Every request allocates short-lived objects (the parsed
 * request, rows, the answer), and every request in flight waits for each pause of the collector.
 *
 * - `--max-semi-space-size=16`: a 16 MB young generation. It is scavenged each time it fills. Measured under load
 *   (`--trace-gc`, `GET /v1/leads`, 32 connections), a scavenge's pause grows with the size: about 1, 2, 4 and 8 ms at
 *   8, 16, 32 (V8's own choice from the heap limit on this machine) and 64 MB semi-spaces, while the total time spent
 *   scavenging stays about the same. 16 MB took the GET's p99 from 18–21 ms at 64 MB to 12–15 ms.
 * - `--no-allocation-site-pretenuring`: V8 allocates the objects of an allocation site straight in the old generation
 *   once enough of them survive a scavenge. Under load, a request's objects are often alive at a scavenge (they wait
 *   for the database), so V8 pretenured them, although they die milliseconds later: the old generation then filled
 *   with about 85 MB/s of dead requests, and a full mark-compact (2.5–7.7 ms of pause, and incremental steps of up to
 *   5 ms) ran every second. Without it, in the same 12 s of GET load: 4 mark-compacts instead of 11, scavenges of
 *   1.2 ms instead of 2.4 ms; `npm run bench:api`: GET 68–69 % → 80 % of its floor, p99 2.0–2.1× → 1.44× its floor's.
 *
 * V8 reads them at start: the processes the cluster forks (production's default, one per core) get the flags; a single
 * process is started with them (`npm start` does; README). An operator's own setting of either option wins.
 */
export const GC_FLAGS = ["--max-semi-space-size=16", "--no-allocation-site-pretenuring"] as const;

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
