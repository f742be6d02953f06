/**
 * Prefixed, sortable ids (`lead_01JD3Z…`): a type prefix and a ULID, so ids sort by creation time, say what they
 * name, and match the contract's id patterns.
 */
import { encodeTime, monotonicFactory } from "ulid";

const ID_PREFIXES = {
  lead: "lead",
  conversation: "conv",
  message: "msg",
  ticket: "tkt",
  event: "evt",
  webhook: "wh",
  delivery: "dlv",
  apiKey: "key",
  testDataReset: "tdr",
  attributeDefinition: "attr",
  workspace: "ws",
  user: "usr",
  request: "req",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/**
 * The ULID's randomness, drawn from the CSPRNG 4 KiB at a time: the library's default asks it once per character
 * (16 calls per id), and every request gets an id, so those calls were a cost of every request. Each byte gives one
 * base32 character from its low 5 bits, so every character stays uniform.
 */
const randomPool = new Uint8Array(4096);
let randomOffset = randomPool.length;
function pooledRandom(): number {
  if (randomOffset === randomPool.length) {
    crypto.getRandomValues(randomPool);
    randomOffset = 0;
  }
  return ((randomPool[randomOffset++] as number) & 31) / 32;
}

const nextUlid = monotonicFactory(pooledRandom);

/**
 * @example
 * newId("lead") // "lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7"
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIXES[kind]}_${nextUlid(now)}`;
}

/**
 * The smallest id of `kind` made at `time`: every id made earlier sorts below it. (`newId` cannot give it: its ULIDs
 * never go back in time.) A time before 1970, which no id has, gives the smallest id of all.
 *
 * @example
 * firstIdAt("event", Date.parse("2026-10-01T00:00:00Z")) // "evt_01K6DFZ1C00000000000000000"
 */
export function firstIdAt(kind: IdKind, time: number): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(Math.max(0, time), 10)}${"0".repeat(16)}`;
}

const patterns = new Map<IdKind, RegExp>();

/**
 * The pattern of one kind's ids, as the contract writes it: its prefix, then a ULID in Crockford base32.
 *
 * @example
 * idPattern("lead").test("lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7") // true
 */
export function idPattern(kind: IdKind): RegExp {
  let pattern = patterns.get(kind);
  if (!pattern) {
    pattern = new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-HJKMNP-TV-Z]{26}$`);
    patterns.set(kind, pattern);
  }
  return pattern;
}
