/**
 * The size of V8's young generation for the API's processes. Every request allocates short-lived objects (the
 * parsed request, rows, the answer); the young generation is scavenged each time it fills, and a scavenge costs
 * what survives it (the requests in flight), not its size. V8 sizes it from the heap limit (`0`: 32 MB
 * semi-spaces on this machine's Node 20, measured with `v8.getHeapSpaceStatistics()`); 64 MB scavenges half as
 * often. Under `npm run bench:api` the CPU time of a `GET /v1/leads` fell by 8 % (0.842 → 0.776 ms), at the cost
 * of up to 64 MB more memory per process (two semi-spaces, each 32 MB larger).
 *
 * V8 reads the size once, at start: the processes the cluster forks (production's default, one per core) get the
 * flag; a single process is started with it (`node --max-semi-space-size=64 server/dist/main.js`, README). An
 * operator's own `--max-semi-space-size` (on the command line or in NODE_OPTIONS) wins.
 */
export const YOUNG_GENERATION_FLAG = "--max-semi-space-size=64";

/** `execArgv` with the flag added, unless the operator set a size already. */
export function withYoungGeneration(execArgv: readonly string[], nodeOptions = process.env.NODE_OPTIONS): string[] {
  const given = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].some((option) =>
    option.startsWith("--max-semi-space-size"),
  );
  return given ? [...execArgv] : [...execArgv, YOUNG_GENERATION_FLAG];
}
