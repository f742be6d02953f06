/**
 * Keeps the published contract: compares the generated OpenAPI 3.1 document with the newest release under
 * `spec/releases/` using api-smart-diff, and fails on any change it classifies as breaking that is not listed,
 * with its reason, in `spec/releases/accepted-changes.yaml` (changes the differ flags that break no client, such as
 * a rule the server always enforced, now written in the schema).
 *
 *   npm run contract:diff           exit 0, or 1 with every unaccepted breaking change listed
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { apiCompare } from "api-smart-diff";
import { parse } from "yaml";

export interface AcceptedChange {
  /** The change's path, `/`-joined, as api-smart-diff reports it (a prefix matches everything below it). */
  path?: string;
  /** Or a regular expression that the whole path matches: one kind of change seen through every operation. */
  pattern?: string;
  /** Or a value added wherever it is (one keyword's value given to many schemas), compared with the change's own. */
  added?: unknown;
  reason: string;
}

function covers(entry: AcceptedChange, change: BreakingChange): boolean {
  if (entry.added !== undefined) return change.action === "add" && isDeepStrictEqual(change.after, entry.added);
  if (entry.pattern !== undefined) return new RegExp(`^(?:${entry.pattern})$`).test(change.path);
  return entry.path !== undefined && (change.path === entry.path || change.path.startsWith(`${entry.path}/`));
}

export interface BreakingChange {
  path: string;
  action: string;
  description: string;
  /** The value the change gives (an addition's). */
  after?: unknown;
}

/** Every breaking change from `before` to `after` that no accepted entry covers. */
export function breakingChanges(
  before: object,
  after: object,
  accepted: readonly AcceptedChange[] = [],
): BreakingChange[] {
  const { diffs } = apiCompare(before, after);
  return diffs
    .filter((diff) => diff.type === "breaking")
    .map((diff) => ({
      path: diff.path.join("/"),
      action: diff.action,
      description: diff.description ?? `${diff.action} ${diff.path.join("/")}`,
      after: diff.after,
    }))
    .filter((change) => !accepted.some((entry) => covers(entry, change)));
}

const specDir = join(dirname(fileURLToPath(import.meta.url)), "..");

export function latestRelease(): { version: string; doc: object } {
  const versions = readdirSync(join(specDir, "releases"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  const version = versions.at(-1);
  if (!version) throw new Error("no release under spec/releases");
  return { version, doc: parse(readFileSync(join(specDir, "releases", version, "openapi.yaml"), "utf8")) as object };
}

export function acceptedChanges(): AcceptedChange[] {
  return (parse(readFileSync(join(specDir, "releases", "accepted-changes.yaml"), "utf8")) ?? []) as AcceptedChange[];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const release = latestRelease();
  const current = parse(readFileSync(join(specDir, "generated", "openapi.yaml"), "utf8")) as object;
  const breaks = breakingChanges(release.doc, current, acceptedChanges());
  if (breaks.length > 0) {
    console.error(`${breaks.length} breaking change(s) against the published ${release.version} contract:`);
    for (const change of breaks) console.error(`  ${change.action} ${change.path}: ${change.description}`);
    process.exit(1);
  }
  console.log(`no breaking change against the published ${release.version} contract`);
}
