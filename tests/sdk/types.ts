/**
 * Compile-time tests of the SDK's types (checked by `npm run typecheck`, part of `npm test`): each
 * `@ts-expect-error` line must fail to compile, or tsc reports the directive as unused and the build fails.
 */
import { createClient, type Lead } from "@service/sdk";

const client = createClient({ apiKey: "sk_live_x", baseUrl: "http://127.0.0.1:3000" });

export async function typeTests(): Promise<void> {
  // A correct call compiles, and its data is the contract's Lead.
  const { data } = await client.POST("/v1/leads", { body: { email: "ada@example.com", status: "new" } });
  const lead: Lead | undefined = data;
  void lead;

  // @ts-expect-error: an unknown path
  await client.GET("/v1/leeds");

  // Not caught at compile time: an extra property (openapi-fetch's generic request type turns off TypeScript's
  // excess-property check). The server refuses it: request schemas are closed (400 VALIDATION_FAILED).

  // @ts-expect-error: a wrong type for a field
  await client.POST("/v1/leads", { body: { name: 42 } });

  // @ts-expect-error: a status outside the enum
  await client.PATCH("/v1/leads/{lead_id}", { params: { path: { lead_id: "lead_x" } }, body: { status: "hot" } });

  // @ts-expect-error: the path parameter is required
  await client.GET("/v1/leads/{lead_id}", {});

  // @ts-expect-error: a required body field is missing (tickets need a subject)
  await client.POST("/v1/tickets", { body: { priority: "high" } });

  // @ts-expect-error: a list filter that does not exist
  client.leads.list({ colour: "red" });

  const { error } = await client.GET("/v1/leads");
  if (error) {
    // Errors are the contract's problem type, with the code catalog.
    const code: "LEAD_NOT_FOUND" | "RATE_LIMITED" | (string & {}) = error.code;
    void code;
  }
}
