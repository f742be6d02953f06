/**
 * `trigger`: makes one event of a type really happen, through the API with the typed client (every write with its
 * Idempotency-Key), then finds it in `GET /v1/events`. With `listen` in another terminal, a receiver gets exactly the
 * event a real change makes, signed as a delivery: the whole test loop, with nothing faked.
 *
 * Only with a test key (`sk_test_…`): it creates leads, conversations, tickets and attribute definitions, which belong in the workspace's
 * test world, never among its live objects. The refusal comes before any request.
 */
import { createClient, type Event, type ServiceClient } from "./client.js";
import { ApiError, type ApiProblem } from "./errors.js";
import type { components } from "./generated/schema.js";

type EventType = components["schemas"]["EventType"];
type EventTypeInfo = components["schemas"]["EventTypeInfo"];

/**
 * How many of the newest events of the type are searched for the one made. It is listed before its write answers, so
 * it is among the first unless as many events of that type were made meanwhile.
 */
const MAX_EVENTS_SEARCHED = 1_000;

interface Run {
  client: ServiceClient;
  /** Unique to this run: in the e-mail address and the texts, so that runs never meet. */
  tag: string;
  log: (line: string) => void;
}

/** The calls that make one event happen, and the id of the object its event carries (`data.object.id`). */
export interface Recipe {
  /** The calls, as `METHOD /path/{param}`, in order. */
  calls: readonly string[];
  run: (run: Run) => Promise<string>;
}

type Answer<T> = { data?: T; error?: ApiProblem; response: Response };

/** The answer's data; an error answer is printed as the call's line and thrown as `ApiError`. */
function checked<T>(run: Run, call: string, answer: Answer<T>, describe?: (data: T) => string): T {
  if (answer.error) {
    run.log(`${call} -> ${answer.response.status} ${answer.error.code}`);
    throw new ApiError(answer.error, answer.response);
  }
  const data = answer.data as T;
  if (describe) run.log(`${call} -> ${answer.response.status} ${describe(data)}`);
  return data;
}

async function newLead(run: Run) {
  const email = `trigger+${run.tag}@example.com`;
  const answer = await run.client.POST("/v1/leads", { body: { email, name: "Trigger Test", source: "sdk trigger" } });
  return checked(run, "POST /v1/leads", answer, (lead) => `${lead.id} (${email})`);
}

async function newConversation(run: Run) {
  const answer = await run.client.POST("/v1/conversations", { body: { subject: `Trigger test ${run.tag}` } });
  return checked(run, "POST /v1/conversations", answer, (conversation) => conversation.id);
}

/** A string field of tickets, its key unique to this run. */
async function newDefinition(run: Run) {
  const key = `trigger_${run.tag.replaceAll("-", "")}`;
  const answer = await run.client.POST("/v1/attribute-definitions", {
    body: { object_type: "ticket", key, label: `Trigger test ${run.tag}`, type: "string" },
  });
  return checked(run, "POST /v1/attribute-definitions", answer, (definition) => `${definition.id} (${key})`);
}

/**
 * How each event type is made, as the service's writes record them (server/src/domain/*). A type of the contract
 * without a recipe fails the type check here and trigger.test.ts.
 */
export const RECIPES = {
  "lead.captured": {
    calls: ["POST /v1/leads"],
    run: async (run) => (await newLead(run)).id,
  },
  "lead.updated": {
    calls: ["POST /v1/leads", "PATCH /v1/leads/{lead_id}"],
    run: async (run) => {
      const { id } = await newLead(run);
      const answer = await run.client.PATCH("/v1/leads/{lead_id}", {
        params: { path: { lead_id: id } },
        body: { status: "contacted" },
      });
      return checked(run, `PATCH /v1/leads/${id}`, answer, (lead) => `${lead.id} (status ${lead.status})`).id;
    },
  },
  "lead.deleted": {
    calls: ["POST /v1/leads", "DELETE /v1/leads/{lead_id}"],
    run: async (run) => {
      const { id } = await newLead(run);
      const answer = await run.client.DELETE("/v1/leads/{lead_id}", { params: { path: { lead_id: id } } });
      checked(run, `DELETE /v1/leads/${id}`, answer, () => `${id} (deleted)`);
      return id;
    },
  },
  "conversation.created": {
    calls: ["POST /v1/conversations"],
    run: async (run) => (await newConversation(run)).id,
  },
  "conversation.updated": {
    calls: ["POST /v1/conversations", "PATCH /v1/conversations/{conversation_id}"],
    run: async (run) => {
      const { id } = await newConversation(run);
      const answer = await run.client.PATCH("/v1/conversations/{conversation_id}", {
        params: { path: { conversation_id: id } },
        body: { state: "closed" },
      });
      const describe = (conversation: { id: string; state: string }) =>
        `${conversation.id} (state ${conversation.state})`;
      return checked(run, `PATCH /v1/conversations/${id}`, answer, describe).id;
    },
  },
  // Adding a message also records conversation.updated (the conversation's count and time change).
  "message.created": {
    calls: ["POST /v1/conversations", "POST /v1/conversations/{conversation_id}/messages"],
    run: async (run) => {
      const { id } = await newConversation(run);
      const answer = await run.client.POST("/v1/conversations/{conversation_id}/messages", {
        params: { path: { conversation_id: id } },
        body: { author: { type: "agent", id: "trigger@example.com" }, body: `Trigger test ${run.tag}` },
      });
      return checked(run, `POST /v1/conversations/${id}/messages`, answer, (message) => message.id).id;
    },
  },
  // Creating a ticket is a change too: it records ticket.updated with every field it set (spec/models/events.tsp).
  "ticket.updated": {
    calls: ["POST /v1/tickets"],
    run: async (run) => {
      const answer = await run.client.POST("/v1/tickets", { body: { subject: `Trigger test ${run.tag}` } });
      return checked(run, "POST /v1/tickets", answer, (ticket) => `${ticket.id} (number ${ticket.number})`).id;
    },
  },
  "attribute_definition.created": {
    calls: ["POST /v1/attribute-definitions"],
    run: async (run) => (await newDefinition(run)).id,
  },
  "attribute_definition.updated": {
    calls: ["POST /v1/attribute-definitions", "PATCH /v1/attribute-definitions/{attribute_definition_id}"],
    run: async (run) => {
      const { id } = await newDefinition(run);
      const answer = await run.client.PATCH("/v1/attribute-definitions/{attribute_definition_id}", {
        params: { path: { attribute_definition_id: id } },
        body: { label: `Trigger test ${run.tag}, renamed` },
      });
      return checked(run, `PATCH /v1/attribute-definitions/${id}`, answer, (definition) => definition.id).id;
    },
  },
  "attribute_definition.archived": {
    calls: ["POST /v1/attribute-definitions", "POST /v1/attribute-definitions/{attribute_definition_id}/archive"],
    run: async (run) => {
      const { id } = await newDefinition(run);
      const answer = await run.client.POST("/v1/attribute-definitions/{attribute_definition_id}/archive", {
        params: { path: { attribute_definition_id: id } },
      });
      return checked(run, `POST /v1/attribute-definitions/${id}/archive`, answer, () => `${id} (archived)`).id;
    },
  },
} satisfies Record<EventType, Recipe>;

const hasRecipe = (type: string): type is EventType => Object.hasOwn(RECIPES, type);

export interface TriggerOptions {
  /** A test key (`sk_test_…`) with the write scope of the type's objects and `events:read`. */
  apiKey: string;
  baseUrl: string;
  /** One line per call and for the event found (default: stdout). */
  log?: (line: string) => void;
  fetch?: (request: Request) => Promise<Response>;
}

/** A client for the test world; refuses any other key before a single request. */
function testClient(options: TriggerOptions): ServiceClient {
  if (!options.apiKey.startsWith("sk_test_")) {
    throw new Error(
      "trigger needs a test key (sk_test_…): it creates objects, which must not land among your live data. " +
        "Create one in the console (Developers → API keys, Test mode) and put it in SERVICE_API_KEY.",
    );
  }
  return createClient({
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    ...(options.fetch && { fetch: options.fetch }),
  });
}

async function eventTypesOf(client: ServiceClient, log: (line: string) => void): Promise<EventTypeInfo[]> {
  const answer = await client.GET("/v1/event-types");
  return checked({ client, tag: "", log }, "GET /v1/event-types", answer).data;
}

/**
 * The event types the service knows (`GET /v1/event-types`), each with whether this SDK can trigger it.
 *
 * @example
 * for (const { type, description } of await triggerableTypes({ apiKey: "sk_test_…", baseUrl })) console.log(type, description);
 */
export async function triggerableTypes(
  options: TriggerOptions,
): Promise<(EventTypeInfo & { calls: readonly string[] | undefined })[]> {
  const types = await eventTypesOf(testClient(options), options.log ?? console.log);
  return types.map((info) => ({ ...info, calls: hasRecipe(info.type) ? RECIPES[info.type].calls : undefined }));
}

/**
 * Makes one event of `type` happen in the test world and resolves with it, as `GET /v1/events` lists it. Prints each
 * call with the ids it made, then the event's id and sequence. Throws before any request with a key that is not a test
 * key, with the valid types for a type the service does not know, and `ApiError` for a call the service refused.
 *
 * @example
 * const event = await trigger("lead.captured", { apiKey: "sk_test_…", baseUrl: "http://127.0.0.1:3000" });
 * console.log(event.id, event.sequence);
 */
export async function trigger(type: string, options: TriggerOptions): Promise<Event> {
  const log = options.log ?? ((line: string) => console.log(line));
  const client = testClient(options);
  const known = (await eventTypesOf(client, log)).map((info) => info.type as string);
  if (!known.includes(type)) {
    throw new Error(`Unknown event type "${type}". The service's event types:\n  ${known.join("\n  ")}`);
  }
  if (!hasRecipe(type)) throw new Error(`This version of @service/sdk cannot trigger ${type} yet: update it.`);
  log(`Triggering ${type} in the test world of ${options.baseUrl}`);
  const run: Run = { client, tag: crypto.randomUUID().slice(0, 8), log };
  const objectId = await RECIPES[type].run(run);
  let searched = 0;
  for await (const event of client.paginate("/v1/events", { params: { query: { type, limit: 100 } } })) {
    if (event.data.object.id === objectId) {
      log(`${event.type} ${event.id} (sequence ${event.sequence})`);
      return event;
    }
    if (++searched >= MAX_EVENTS_SEARCHED) break;
  }
  throw new Error(`No ${type} event of ${objectId} among the newest ${searched} of GET /v1/events?type=${type}`);
}
