/**
 * Builds every artifact of the contract from the TypeSpec source:
 *   spec/generated/openapi.yaml       OpenAPI 3.1 (the reference document)
 *   spec/generated/openapi.3.0.yaml   OpenAPI 3.0, for tools that only read 3.0
 *   spec/generated/swagger.2.0.yaml   OpenAPI 2.0 (Swagger), converted from the 3.0 document (swagger2.ts), for tools
 *                                     that only read 2.0 (Power Automate's custom connectors)
 *   spec/generated/schema.ts          TypeScript types (openapi-typescript), exported as `@service/spec/schema`:
 *                                     the server and the console import the contract's types from the contract
 *   sdk/src/generated/schema.ts       the same types, inside the published SDK (which cannot depend on the
 *                                     private spec package)
 *   webhook-verifier/src/generated/events.ts   the event types alone, for the zero-dependency verifier
 *   console/src/generated/enums.ts    the values of the enums the console lists (scopes, event types, attribute
 *                                     objects and types), as arrays
 *
 * `--check` builds the same in memory and fails when a committed file differs: CI runs it, so a `.tsp` change
 * without regeneration cannot land.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { parse, stringify } from "yaml";
import { eventSchemasOnly, forTypes, postProcess, withoutUnusedComponents } from "./post-process.ts";
import { toSwagger2 } from "./swagger2.ts";

const specDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const check = process.argv.includes("--check");
// `--out DIR` writes (or checks) the artifacts under another root than the repository; the tests use it.
const outIndex = process.argv.indexOf("--out");
const repoDir =
  outIndex > 0 && process.argv[outIndex + 1] ? resolve(process.argv[outIndex + 1] as string) : resolve(specDir, "..");

const YAML_BANNER =
  "# Generated from spec/**/*.tsp by spec/scripts/generate.ts. Do not edit: change the TypeSpec and run `npm run generate`.\n";
const TS_BANNER =
  "/**\n * Generated from spec/generated/openapi.yaml by spec/scripts/generate.ts (openapi-typescript).\n * Do not edit: change the TypeSpec and run `npm run generate`.\n */\n\n";

/** The folder of an installed package (its `exports` hide `cmd/tsp.js` from `require.resolve`). */
function packageRoot(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  while (
    !existsSync(join(dir, "package.json")) ||
    JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name !== name
  ) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the folder of ${name}`);
    dir = parent;
  }
  return dir;
}

function compileTypeSpec(): { v30: Record<string, unknown>; v31: Record<string, unknown> } {
  const out = mkdtempSync(join(tmpdir(), "tsp-"));
  try {
    const tsp = join(packageRoot("@typespec/compiler"), "cmd", "tsp.js");
    execFileSync(
      process.execPath,
      [tsp, "compile", join(specDir, "main.tsp"), "--output-dir", out, "--warn-as-error"],
      {
        cwd: specDir,
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    // TypeSpec with two OpenAPI versions writes to schema/<version>/openapi.yaml.
    const read = (version: string) => parse(readFileSync(join(out, "schema", version, "openapi.yaml"), "utf8"));
    return { v30: read("3.0.0"), v31: read("3.1.0") };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * The values of a few enums as runtime arrays: the console draws a checkbox per scope and per event type, and
 * types carry no values. Each array is checked against the schema's type, so a drift fails the type check.
 */
function enumValuesTs(doc: Record<string, unknown>, names: Record<string, string>): string {
  const schemas = (doc.components as { schemas: Record<string, { enum?: unknown[] }> }).schemas;
  let out = TS_BANNER.replace("(openapi-typescript)", "(enum values)");
  out += 'import type { components } from "@service/spec/schema";\n';
  for (const [constant, schema] of Object.entries(names)) {
    const values = schemas[schema]?.enum;
    if (!values) throw new Error(`no enum ${schema} in the document`);
    out += `\n/** Every value of \`${schema}\`, in the contract's order. */\n`;
    out += `export const ${constant} = ${JSON.stringify(values)} as const satisfies readonly components["schemas"]["${schema}"][];\n`;
  }
  return out;
}

function toYaml(doc: unknown): string {
  // lineWidth 0: never fold long strings, so that output does not depend on the yaml library's wrapping. Written by
  // YAML 1.1's rules, every string that a 1.1 reader (PyYAML, many tools) would take for something else is quoted:
  // timestamps, `yes`/`on`, `0755`, `1:20`. Quoted, they are strings to 1.2 readers too; no directive is written.
  return YAML_BANNER + stringify(doc, { lineWidth: 0, version: "1.1" });
}

async function main(): Promise<void> {
  const { v30, v31 } = compileTypeSpec();
  const doc31 = withoutUnusedComponents(postProcess(v31));
  const doc30 = withoutUnusedComponents(postProcess(v30));
  // defaultNonNullable off: a field with a default is optional in requests (the server fills it in); the
  // default of openapi-typescript 7 would make clients send `status: "new"` on every lead.
  const toTypeScript = async (doc: Record<string, unknown>) =>
    TS_BANNER +
    astToString(
      await openapiTS(doc as Parameters<typeof openapiTS>[0] & object, {
        alphabetize: false,
        defaultNonNullable: false,
      }),
    );
  const schemaTs = await toTypeScript(forTypes(doc31));
  const eventsTs = await toTypeScript(eventSchemasOnly(forTypes(doc31), "Event"));

  const artifacts: Record<string, string> = {
    [join(repoDir, "spec", "generated", "openapi.yaml")]: toYaml(doc31),
    [join(repoDir, "spec", "generated", "openapi.3.0.yaml")]: toYaml(doc30),
    [join(repoDir, "spec", "generated", "swagger.2.0.yaml")]: toYaml(await toSwagger2(doc30)),
    [join(repoDir, "spec", "generated", "schema.ts")]: schemaTs,
    [join(repoDir, "sdk", "src", "generated", "schema.ts")]: schemaTs,
    [join(repoDir, "webhook-verifier", "src", "generated", "events.ts")]: eventsTs,
    [join(repoDir, "console", "src", "generated", "enums.ts")]: enumValuesTs(doc31, {
      SCOPES: "Scope",
      EVENT_TYPES: "EventType",
      ATTRIBUTE_OBJECTS: "AttributeObject",
      ATTRIBUTE_TYPES: "AttributeType",
    }),
  };

  const stale: string[] = [];
  for (const [file, content] of Object.entries(artifacts)) {
    let current: string | undefined;
    try {
      current = readFileSync(file, "utf8");
    } catch {
      current = undefined;
    }
    if (current === content) continue;
    if (check) stale.push(relative(repoDir, file));
    else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }

  if (check && stale.length > 0) {
    console.error(`Stale generated files (run \`npm run generate\` and commit):\n  ${stale.join("\n  ")}`);
    process.exit(1);
  }
  console.log(check ? "generated artifacts are fresh" : "generated artifacts written");
}

await main();
