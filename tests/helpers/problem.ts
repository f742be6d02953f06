import { expect } from "vitest";

/** Asserts an RFC 9457 problem+json answer with this status and code, and returns its body. */
export async function expectProblem(
  response: Response,
  status: number,
  code: string,
): Promise<Record<string, unknown>> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  const requestId = response.headers.get("request-id");
  expect(requestId).toMatch(/^req_[0-9A-HJKMNP-TV-Z]{26}$/);
  expect(body).toMatchObject({
    type: `/problems/${code.toLowerCase().replaceAll("_", "-")}`,
    status,
    code,
    request_id: requestId,
  });
  expect(typeof body.title).toBe("string");
  return body;
}
