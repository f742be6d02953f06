/**
 * Every problem's `type` URI answers a page for people (RFC 9457 §3.1.1): what the code means and what to do, from
 * the error catalog, for every code of the contract; and the `type` of a real answer leads to its page.
 */
import { describe, expect, it } from "vitest";
import catalog from "../../spec/error-catalog.json" with { type: "json" };
import { useTestService } from "../helpers/service.ts";

const service = useTestService();

describe("the problem type pages", () => {
  it.each(Object.entries(catalog))("explain %s", async (code, entry) => {
    const response = await service().fetch(`/problems/${code.toLowerCase().replaceAll("_", "-")}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain(`<code>${code}</code>`);
    expect(html).toContain(`HTTP ${entry.status}`);
    // The explanation as a reader sees it: without the markup, its characters decoded.
    const text = html
      .replace(/<[^>]+>/g, "")
      .replace(/&#(\d+);/g, (_entity, n: string) => String.fromCharCode(Number(n)));
    expect(text).toContain(entry.explanation.replaceAll("`", ""));
  });

  it("are reached from a real answer's type, and listed together", async () => {
    const answer = await service().fetch("/v1/leads");
    const problem = (await answer.json()) as { type: string; code: string };
    expect(problem.code).toBe("UNAUTHENTICATED");
    const page = await service().fetch(problem.type);
    expect(await page.text()).toContain("<code>UNAUTHENTICATED</code>");
    const index = await (await service().fetch("/problems")).text();
    for (const code of Object.keys(catalog)) expect(index).toContain(`<code>${code}</code>`);
  });

  it("answers an unknown type with a 404 problem, not a page", async () => {
    const response = await service().fetch("/problems/no-such-code");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });
});
