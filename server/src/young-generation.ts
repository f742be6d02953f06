/**
 * The size of V8's young generation for the API's processes. Every request allocates short-lived objects (the
 * parsed request, rows, the answer); the young generation is scavenged each time it fills, and every request in
 * flight waits for the scavenge. Measured under load (`--trace-gc`, `GET /v1/leads`, 32 connections), a scavenge's
 * pause grows with the size: about 1, 2, 4 and 8 ms at 8, 16, 32 (V8's own choice from the heap limit on this
 * machine) and 64 MB semi-spaces, while the total time spent scavenging stays about the same (1.3–1.5 s in 10 s).
 * 16 MB keeps the pauses off the tail: the p99 of a GET fell from 18–21 ms at 64 MB to 12–15 ms, at the same CPU time
 * per request. (An earlier 64 MB was chosen when a request cost four times the CPU it costs now, for 8 % less of it.)
 *
 * V8 reads the size once, at start: the processes the cluster forks (production's default, one per core) get the
 * flag; a single process is started with it (`node --max-semi-space-size=16 server/dist/main.js`, README). An
 * operator's own `--max-semi-space-size` (on the command line or in NODE_OPTIONS) wins.
 */
export const YOUNG_GENERATION_FLAG = "--max-semi-space-size=16";

/** `execArgv` with the flag added, unless the operator set a size already. */
export function withYoungGeneration(execArgv: readonly string[], nodeOptions = process.env.NODE_OPTIONS): string[] {
  const given = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].some((option) =>
    option.startsWith("--max-semi-space-size"),
  );
  return given ? [...execArgv] : [...execArgv, YOUNG_GENERATION_FLAG];
}
