#!/usr/bin/env node
/**
 * The SDK's command line, with the API key in `SERVICE_API_KEY` and the service's address in `SERVICE_BASE_URL`:
 * - `npx @service/sdk listen --forward-to <url> [--events a,b] [--secret whsec_…] [--state F] [--from now|N]
 *   [--skip-refused]` (listen.ts);
 * - `npx @service/sdk trigger <event-type>` and `trigger --list` (trigger.ts).
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { ApiError } from "./errors.js";
import { listen } from "./listen.js";
import { defaultStateFile, feedMode } from "./listen-state.js";
import { trigger, triggerableTypes } from "./trigger.js";

const LISTEN_USAGE = `Usage: npx @service/sdk listen --forward-to <url> [options]

Follows the workspace's events and POSTs each one to <url>, signed as a webhook delivery. An event the receiver
does not accept (anything but a 2xx) is tried again until it does; listen never moves past it on its own.

Options:
  --forward-to <url>   where to send each event (required)
  --events <a,b>       only these event types (default: all)
  --secret <whsec_…>   the signing secret (default: the one kept in the state file, else a new one; printed at start)
  --state <file>       where the position and the secret are kept (default: .data/listen/test.json for a test
                       key, .data/listen/live.json for a live one)
  --from <now|N>       where to start without a position: now (default) or after sequence N
  --skip-refused       move past an event the receiver refused (3xx, 4xx but 408 and 429), saying so

Environment: SERVICE_API_KEY (an API key with events:read), SERVICE_BASE_URL (default http://127.0.0.1:3000).`;

const TRIGGER_USAGE = `Usage: npx @service/sdk trigger <event-type>
       npx @service/sdk trigger --list

Makes one event of <event-type> really happen in the test world, through the API, prints each call and the ids it
made, then the event's id and sequence. With listen running, your receiver gets it.

Environment: SERVICE_API_KEY (a test key, sk_test_…, with events:read and the write scopes of the objects made:
leads:write, conversations:write, tickets:write), SERVICE_BASE_URL (default http://127.0.0.1:3000).`;

const USAGE = `Usage: npx @service/sdk <command>

Commands:
  listen    forward the workspace's events to a local URL, signed as webhook deliveries
  trigger   make one event of a type happen in the test world

npx @service/sdk <command> --help tells more.`;

/**
 * Where listen kept its state before test mode: the README ran it in the repository root, where Biome then failed on
 * it. Moved under .data/ at the first start; remove at the next major version.
 */
const LEGACY_STATE_FILE = ".service-listen.json";

function fail(message: string, usage: string): never {
  console.error(`${message}\n\n${usage}`);
  process.exit(2);
}

const baseUrl = () => (process.env.SERVICE_BASE_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");

async function runListen(args: string[]): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        "forward-to": { type: "string" },
        events: { type: "string" },
        secret: { type: "string" },
        state: { type: "string" },
        from: { type: "string", default: "now" },
        "skip-refused": { type: "boolean" },
        help: { type: "boolean" },
      },
    }));
  } catch (error) {
    fail((error as Error).message, LISTEN_USAGE);
  }
  if (values.help) {
    console.log(LISTEN_USAGE);
    return;
  }
  const forwardTo = values["forward-to"];
  if (typeof forwardTo !== "string") fail("--forward-to is required.", LISTEN_USAGE);
  const apiKey = process.env.SERVICE_API_KEY;
  if (!apiKey) fail("Set SERVICE_API_KEY to an API key with the events:read scope.", LISTEN_USAGE);
  const from = values.from === "now" ? "now" : Number(values.from);
  if (from !== "now" && !(Number.isInteger(from) && from >= 0)) {
    fail("--from takes now or a sequence (0 or more).", LISTEN_USAGE);
  }
  const stateFile = typeof values.state === "string" ? values.state : defaultStateFile(feedMode(apiKey));
  // Its keys were all live ones: test keys came later.
  const legacyTarget = defaultStateFile("live");
  if (values.state === undefined && existsSync(LEGACY_STATE_FILE) && !existsSync(legacyTarget)) {
    mkdirSync(dirname(legacyTarget), { recursive: true });
    renameSync(LEGACY_STATE_FILE, legacyTarget);
    console.log(`Moved ${LEGACY_STATE_FILE} to ${legacyTarget}: listen keeps its state under .data/listen/ now.`);
  }
  const listening = await listen({
    apiKey,
    baseUrl: baseUrl(),
    forwardTo,
    stateFile,
    from,
    skipRefused: values["skip-refused"] === true,
    ...(typeof values.events === "string" && { events: values.events.split(",").filter(Boolean) }),
    ...(typeof values.secret === "string" && { secret: values.secret }),
  });
  const origin = { given: "given with --secret", kept: "kept", new: "new" }[listening.secretSource];
  const feed = apiKey.startsWith("sk_test_") ? "test events" : "events";
  console.log(
    `Forwarding the ${feed} of ${baseUrl()} to ${forwardTo}, signed with ${listening.secret} (${origin}; kept in ${stateFile} for the next start)`,
  );
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void listening.stop());
  await listening.done;
}

async function runTrigger(args: string[]): Promise<void> {
  let parsed: { values: Record<string, boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { list: { type: "boolean" }, help: { type: "boolean" } },
    });
  } catch (error) {
    fail((error as Error).message, TRIGGER_USAGE);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(TRIGGER_USAGE);
    return;
  }
  const [type, ...extra] = positionals;
  if (!values.list && type === undefined) fail("Name an event type, or give --list.", TRIGGER_USAGE);
  if (extra.length > 0 || (values.list && type !== undefined)) fail("One event type at a time.", TRIGGER_USAGE);
  const apiKey = process.env.SERVICE_API_KEY;
  if (!apiKey) fail("Set SERVICE_API_KEY to a test key (sk_test_…).", TRIGGER_USAGE);
  const options = { apiKey, baseUrl: baseUrl() };
  if (values.list) {
    for (const info of await triggerableTypes(options)) {
      const how = info.calls ? info.calls.join(", ") : "not triggerable by this version of the SDK";
      console.log(`${info.type.padEnd(22)} ${info.description}\n${" ".repeat(23)}${how}`);
    }
    return;
  }
  await trigger(type as string, options);
}

async function main([command, ...rest]: string[]): Promise<void> {
  if (command === "listen") return runListen(rest);
  if (command === "trigger") return runTrigger(rest);
  if (command === "--help" || command === "-h") {
    console.log(USAGE);
    return;
  }
  fail(command ? `Unknown command: ${command}` : "No command given.", USAGE);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  // An API refusal names its status and code: INSUFFICIENT_SCOPE says which scope the key lacks.
  if (error instanceof ApiError) console.error(`${error.status} ${error.code}: ${error.message}`);
  else console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
