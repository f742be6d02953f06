/**
 * What the journeys of one webhook endpoint share: the console, a local HTTPS receiver it may deliver to (its CA trusted
 * through NODE_EXTRA_CA_CERTS, private addresses allowed, as in webhooks.test.ts), an account, and an SDK client with an
 * API key of the account's workspace. The browser does what is tested; the client arranges and checks through `/v1`,
 * as an integrator would.
 */
import { type components, createClient, type ServiceClient } from "@service/sdk";
import type { Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { makeCertificates, type Receiver, startReceiver } from "../helpers/receiver.ts";
import { ok } from "../helpers/sdk.ts";
import {
  accountViaApi,
  apiKeyViaSession,
  type ConsoleHarness,
  signInViaConsole,
  uniqueEmail,
  useConsole,
} from "./harness.ts";

type EventType = components["schemas"]["EventType"];

// The receiver's CA exists before the server starts, which trusts it through NODE_EXTRA_CA_CERTS.
const certificates = await makeCertificates();

const SCOPES = ["webhooks:read", "webhooks:write", "leads:write"];

export interface EndpointJourneys {
  harness: ConsoleHarness;
  email: string;
  receiver: Receiver;
  client: ServiceClient;
  /** The receiver's status code by path, given how many requests that path has had (this one included); else 204. */
  answers: Map<string, (count: number) => number>;
}

export function useEndpointJourneys(env: Record<string, string> = {}): () => EndpointJourneys {
  const harness = useConsole({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    NODE_EXTRA_CA_CERTS: certificates.caFile,
    // The journeys poll `/v1` while the worker delivers: a budget that polling never reaches.
    API_RATE_LIMIT_PER_MINUTE: "100000",
    ...env,
  });
  const email = uniqueEmail("endpoints");
  const answers = new Map<string, (count: number) => number>();
  let receiver: Receiver | undefined;
  let client: ServiceClient | undefined;
  beforeAll(async () => {
    receiver = await startReceiver(certificates);
    receiver.respond = (request, count) => ({ status: answers.get(request.path)?.(count) ?? 204 });
    await accountViaApi(harness(), email);
    client = createClient({ apiKey: await apiKeyViaSession(harness(), email, SCOPES), baseUrl: harness().url });
  });
  afterAll(() => receiver?.close());
  return () => {
    if (!receiver || !client) throw new Error("the endpoint journeys are not started");
    return { harness: harness(), email, receiver, client, answers };
  };
}

/** A subscription of the workspace to the receiver's `path`, with its secret. */
export async function subscribe(journeys: EndpointJourneys, path: string, events: EventType[] = ["lead.captured"]) {
  const { client, receiver } = journeys;
  return ok(await client.POST("/v1/webhooks", { body: { url: `${receiver.url}${path}`, events } }));
}

/** The subscription as the service keeps it. */
export async function readWebhook(journeys: EndpointJourneys, id: string) {
  return ok(await journeys.client.GET("/v1/webhooks/{webhook_id}", { params: { path: { webhook_id: id } } }));
}

/** The subscription's deliveries, newest first. */
export async function deliveriesOf(journeys: EndpointJourneys, id: string) {
  const list = ok(
    await journeys.client.GET("/v1/webhooks/{webhook_id}/deliveries", { params: { path: { webhook_id: id } } }),
  );
  return list.data;
}

/** Sends the subscription a test event of `lead.captured`. */
export async function sendTestEvent(journeys: EndpointJourneys, id: string) {
  return ok(
    await journeys.client.POST("/v1/webhooks/{webhook_id}/test", {
      params: { path: { webhook_id: id } },
      body: { event_type: "lead.captured" },
    }),
  );
}

/** Signs in and opens the endpoint's page from the Webhooks list, as a person does. */
export async function openEndpoint(journeys: EndpointJourneys, page: Page, url: string): Promise<void> {
  await signInViaConsole(page, journeys.email);
  await page.getByRole("link", { name: "Webhooks", exact: true }).click();
  await page.getByRole("link", { name: url, exact: true }).click();
  await page.getByRole("heading", { level: 1, name: "Webhook endpoint" }).waitFor();
}
