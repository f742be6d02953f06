import { describe, expect, it } from "vitest";
import { registerAndVerify, signIn, uniqueEmail } from "../helpers/accounts.ts";
import { expectProblem } from "../helpers/problem.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ TRUST_PROXY: "loopback" });

describe("GET /api/workspace", () => {
  it("answers the signed-in user's workspace, and 401 without a session", async () => {
    const email = uniqueEmail("workspace");
    await registerAndVerify(service(), email);
    const { cookie, workspaceId } = await signIn(service(), email);
    const workspace = await service().fetch("/api/workspace", { headers: { cookie } });
    expect(workspace.status).toBe(200);
    expect(await workspace.json()).toMatchObject({ id: workspaceId, object: "workspace" });
    await expectProblem(await service().fetch("/api/workspace"), 401, "UNAUTHENTICATED");
  });
});
