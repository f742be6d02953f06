/**
 * The refusal of a webhook URL on a private address: outside production it names the setting that allows one (a
 * developer's local receiver is otherwise refused with no way out in sight); in production it reveals no setting.
 */
import { describe, expect, it } from "vitest";
import { checkWebhookUrl } from "../../server/src/domain/webhooks/ssrf.ts";
import { clientFor } from "../helpers/sdk.ts";
import { useTestService } from "../helpers/service.ts";

const SETTING = "WEBHOOK_ALLOW_PRIVATE_NETWORKS=true";

async function refusal(url: string, options: Parameters<typeof checkWebhookUrl>[1]): Promise<string> {
  const error = await checkWebhookUrl(url, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toMatchObject({ code: "WEBHOOK_URL_NOT_ALLOWED" });
  return (error as { detail: string }).detail;
}

describe("checkWebhookUrl's refusal of a private address", () => {
  it.each([
    ["https://127.0.0.1:8443/webhooks", "loopback"],
    ["https://[::1]:8443/webhooks", "loopback"],
    ["https://10.0.0.8/hook", "private"],
  ])("names %s's range and, when asked (development), the setting that allows it", async (url, range) => {
    const detail = await refusal(url, { allowPrivateNetworks: false, nameSettingInRefusal: true });
    expect(detail).toContain(`a ${range} address`);
    expect(detail).toContain(`start the service with ${SETTING} (local development only)`);
  });

  it("names no setting unless asked (production, and the default)", async () => {
    for (const options of [
      { allowPrivateNetworks: false, nameSettingInRefusal: false },
      { allowPrivateNetworks: false },
    ]) {
      const detail = await refusal("https://127.0.0.1:8443/webhooks", options);
      expect(detail).toBe(
        "127.0.0.1 resolves to a loopback address (127.0.0.1); webhooks go to public addresses only.",
      );
    }
  });

  it("names no setting for refusals that no setting lifts", async () => {
    const options = { allowPrivateNetworks: false, nameSettingInRefusal: true };
    expect(await refusal("http://127.0.0.1/webhooks", options)).not.toContain("WEBHOOK_");
    expect(await refusal("https://user:pw@127.0.0.1/webhooks", options)).not.toContain("WEBHOOK_");
  });
});

describe.each([
  { env: "production", names: false },
  { env: "development", names: true },
])("POST /v1/webhooks to a private address in $env", ({ env, names }) => {
  const service = useTestService({ NODE_ENV: env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" });

  it(`answers 422 WEBHOOK_URL_NOT_ALLOWED, ${names ? "naming the setting that allows a local receiver" : "revealing no setting"}`, async () => {
    const client = await clientFor(service());
    const result = await client.POST("/v1/webhooks", {
      body: { url: "https://127.0.0.1:8443/webhooks", events: ["lead.captured"] },
    });
    expect(result.response.status).toBe(422);
    expect(result.error).toMatchObject({ code: "WEBHOOK_URL_NOT_ALLOWED" });
    const detail = (result.error as { detail?: string }).detail ?? "";
    if (names) expect(detail).toContain(`start the service with ${SETTING}`);
    else expect(JSON.stringify(result.error)).not.toContain("WEBHOOK_ALLOW_PRIVATE_NETWORKS");
  });
});
