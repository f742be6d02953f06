import { describe, expect, it } from "vitest";
import { AppError } from "../errors.ts";
import { DATE_TIME_RULE, fieldErrors, fieldPath, toAppError } from "./error-handler.ts";

describe("toAppError", () => {
  const cases = [
    {
      name: "an AppError as it is",
      given: new AppError("LEAD_NOT_FOUND"),
      want: { code: "LEAD_NOT_FOUND", status: 404 },
    },
    {
      name: "body-parser's parse failure",
      given: { type: "entity.parse.failed", status: 400 },
      want: { code: "MALFORMED_JSON" },
    },
    {
      name: "body-parser's size limit",
      given: { type: "entity.too.large", status: 413 },
      want: { code: "PAYLOAD_TOO_LARGE" },
    },
    {
      name: "an unsupported charset",
      given: { type: "charset.unsupported", status: 415 },
      want: { code: "UNSUPPORTED_MEDIA_TYPE" },
    },
    {
      name: "a validator 400",
      given: { status: 400, errors: [{ path: "/body/email", message: "bad" }] },
      want: { code: "VALIDATION_FAILED" },
    },
    { name: "a validator 404", given: { status: 404 }, want: { code: "ROUTE_NOT_FOUND" } },
    { name: "a validator 415", given: { status: 415 }, want: { code: "UNSUPPORTED_MEDIA_TYPE" } },
    {
      name: "a lead deleted under a write that names it",
      given: { code: "23503", constraint: "tickets_lead_id_fkey" },
      want: { code: "LEAD_NOT_FOUND", status: 404 },
    },
    {
      name: "a conversation gone under a ticket that names it",
      given: { code: "23503", constraint: "tickets_conversation_id_fkey" },
      want: { code: "CONVERSATION_NOT_FOUND", status: 404 },
    },
    {
      name: "another foreign key",
      given: { code: "23503", constraint: "api_keys_workspace_id_fkey" },
      want: { code: "INTERNAL_ERROR" },
    },
    {
      name: "a deadlock as a retryable 503",
      given: { code: "40P01" },
      want: { code: "WRITE_CONFLICT", status: 503, headers: { "Retry-After": "1" } },
    },
    {
      name: "a lock not available in time as a retryable 503",
      given: { code: "55P03" },
      want: { code: "WRITE_CONFLICT", status: 503, headers: { "Retry-After": "1" } },
    },
    { name: "anything else", given: new TypeError("boom"), want: { code: "INTERNAL_ERROR", status: 500 } },
    { name: "a thrown string", given: "boom", want: { code: "INTERNAL_ERROR" } },
  ];
  it.each(cases)("maps $name", ({ given, want }) => {
    expect(toAppError(given)).toMatchObject(want);
  });

  it("keeps the cause, so logs show what happened", () => {
    const cause = new TypeError("boom");
    expect(toAppError(cause).cause).toBe(cause);
  });

  it("lists the validator's field errors with dotted paths", () => {
    const error = toAppError({ status: 400, errors: [{ path: "/body/email", message: "must match format" }] });
    expect(error.errors).toEqual([{ path: "body.email", message: "must match format" }]);
  });

  it("sets Allow on 405 from the validator's list, with HEAD wherever GET is", () => {
    expect(toAppError({ status: 405, headers: { Allow: "get, post" } }).headers).toEqual({ Allow: "GET, POST, HEAD" });
    expect(toAppError({ status: 405, headers: { Allow: "post" } }).headers).toEqual({ Allow: "POST" });
  });
});

describe("fieldPath", () => {
  it.each([
    ["/body/email", "body.email"],
    [".query.limit", "query.limit"],
    ["/path/lead_id", "path.lead_id"],
    ["/params/lead_id", "path.lead_id"],
    [".headers.idempotency-key", "header.idempotency-key"],
    ["/body/params/headers", "body.params.headers"],
    ["", "request"],
  ])("%s → %s", (given, want) => {
    expect(fieldPath(given)).toBe(want);
  });
});

describe("fieldErrors", () => {
  it.each([
    {
      given: [
        { path: "/body/email", message: 'must match format "email"', errorCode: "format.openapi.validation" },
        { path: "/body/email", message: 'must match pattern "^[^@]{1,64}@"', errorCode: "pattern.openapi.validation" },
        { path: "/body/name", message: 'must match pattern "^a"', errorCode: "pattern.openapi.validation" },
      ],
      want: [
        { path: "body.email", message: 'must match format "email"' },
        { path: "body.name", message: 'must match pattern "^a"' },
      ],
    },
    {
      given: [
        {
          path: "/body/nam",
          message: "must NOT have unevaluated properties",
          errorCode: "unevaluatedProperties.openapi.validation",
        },
      ],
      want: [{ path: "body.nam", message: "unknown property `nam`" }],
    },
    {
      given: [
        {
          path: "/body/x",
          message: "must NOT have additional properties",
          errorCode: "additionalProperties.openapi.validation",
        },
      ],
      want: [{ path: "body.x", message: "unknown property `x`" }],
    },
    {
      given: [
        {
          path: "/body/email",
          message: "must have required property 'email'",
          errorCode: "required.openapi.validation",
        },
        { path: "/body/name", message: "must have required property 'name'", errorCode: "required.openapi.validation" },
        { path: "/body", message: "must match a schema in anyOf", errorCode: "anyOf.openapi.validation" },
      ],
      want: [{ path: "body", message: "must have at least one of `email`, `name`" }],
    },
    {
      given: [
        {
          path: "/body/subject",
          message: "must have required property 'subject'",
          errorCode: "required.openapi.validation",
        },
      ],
      want: [{ path: "body.subject", message: "must have required property 'subject'" }],
    },
    {
      given: [{ path: "/query/limit", message: "must be <= 100" }],
      want: [{ path: "query.limit", message: "must be <= 100" }],
    },
    {
      given: [
        { path: "/body/due_at", message: 'must match format "date-time"', errorCode: "format.openapi.validation" },
      ],
      want: [{ path: "body.due_at", message: DATE_TIME_RULE }],
    },
    {
      given: [
        { path: "/body/due_at", message: 'must match format "date-time"', errorCode: "format.openapi.validation" },
        { path: "/body/due_at", message: "must be null", errorCode: "type.openapi.validation" },
        { path: "/body/due_at", message: "must match a schema in anyOf", errorCode: "anyOf.openapi.validation" },
      ],
      want: [{ path: "body.due_at", message: DATE_TIME_RULE }],
    },
  ])("$want.0.message", ({ given, want }) => {
    expect(fieldErrors(given)).toEqual(want);
  });
});
