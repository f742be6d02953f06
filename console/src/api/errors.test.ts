import { describe, expect, it } from "vitest";
import { ApiError, fieldErrors, type Problem } from "./errors.ts";

const problem = (errors: Problem["errors"]): Problem => ({
  type: "/problems/validation-failed",
  title: "Validation failed",
  status: 400,
  code: "VALIDATION_FAILED",
  request_id: "req_1",
  errors,
});

describe("fieldErrors", () => {
  it.each([
    { given: [{ path: "body.url", message: "must match pattern" }], want: [["url", "must match pattern"]] },
    { given: [{ path: "body.events.0", message: "must be one of" }], want: [["events", "must be one of"]] },
    { given: [{ path: "/until", message: "must be after since" }], want: [["until", "must be after since"]] },
    {
      given: [
        { path: "body.max_deliveries_per_second", message: "must be <= 1000" },
        { path: "body.max_deliveries_per_second", message: "must be integer" },
      ],
      want: [["max_deliveries_per_second", "must be <= 1000"]],
    },
    { given: [{ path: "body", message: "must have at least one of" }], want: [] },
    { given: undefined, want: [] },
  ])("reads $given as $want", ({ given, want }) => {
    expect([...fieldErrors(new ApiError(400, problem(given), undefined))]).toEqual(want);
  });

  it("reads nothing from an error that is not the service's", () => {
    expect(fieldErrors(new Error("offline")).size).toBe(0);
  });
});
