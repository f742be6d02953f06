/**
 * The contract's request check (server/src/http/contract-requests.ts) answers as express-openapi-validator, which it
 * replaced on the request path, does: the same requests, generated from the contract's operations and their
 * parameters, go to two Express apps that differ only in the check, and every answer (status, code, field errors,
 * `Allow`, and on success the coerced parameters and the body with its defaults) must be the same.
 */
import type { AddressInfo } from "node:net";
import { parse as parseQuery } from "node:querystring";
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CompiledContract, compileContract } from "../../server/src/http/contract-requests.ts";
import { toAppError } from "../../server/src/http/error-handler.ts";
import { listOperations, loadOpenApiDocument } from "../../server/src/http/openapi-document.ts";
import { isStorableDateTime } from "../../server/src/http/storable.ts";

const { doc } = loadOpenApiDocument();
const operations = listOperations(doc);
const ID = "01JD3Z6Q4W2YB7K8N9P0R5S6T7";
const PREFIXES: Record<string, string> = {
  lead_id: "lead",
  conversation_id: "conv",
  ticket_id: "tkt",
  event_id: "evt",
  webhook_id: "wh",
  delivery_id: "dlv",
  key_id: "key",
};

/** What express-openapi-validator sets on a request it matched. */
interface MatchedRequest extends Request {
  openapi?: { expressRoute: string; pathParams: Record<string, string>; schema: { operationId?: string } };
}

/** The contract check as the server's operations call it (operations.ts), answering with what it checked. */
function checkedBy(contract: CompiledContract): RequestHandler {
  return (req, res) => {
    const url = req.originalUrl;
    const mark = url.indexOf("?");
    const { operation, pathParams } = contract.match(req.method, mark === -1 ? url : url.slice(0, mark));
    const checked = {
      headers: req.headers,
      query: parseQuery(mark === -1 ? "" : url.slice(mark + 1)),
      params: pathParams,
      body: req.body as unknown,
    };
    contract.check(operation, checked);
    res.json({
      operationId: operation.schema.operationId,
      route: operation.expressRoute,
      params: checked.params,
      query: checked.query,
      body: checked.body,
    });
  };
}

/** express-openapi-validator's check, answering with what it checked. */
const echoMatched: RequestHandler = (req, res) => {
  const matched = (req as MatchedRequest).openapi;
  res.json({
    operationId: matched?.schema.operationId,
    route: matched?.expressRoute,
    // Express gives a middleware empty params: the validator's own are what it matched and checked.
    params: matched?.pathParams,
    query: req.query,
    body: req.body as unknown,
  });
};

function serve(check: RequestHandler[]) {
  const app = express();
  app.use(express.json({ strict: true, type: ["application/json", "application/*+json"] }));
  app.use(check);
  const handleError: ErrorRequestHandler = (error, _req, res, _next) => {
    const problem = toAppError(error);
    // `Allow` is a set (RFC 9110 §10.2.1): compared sorted, as the two list the methods in opposite orders.
    const allow = problem.headers.Allow?.split(", ").sort().join(", ");
    res.status(problem.status).json({ code: problem.code, errors: problem.errors ?? [], allow });
  };
  app.use(handleError);
  return new Promise<{ url: string; close(): void }>((resolve) => {
    const server = app.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }),
    );
  });
}

/** What a request's answer says, with the checked request's params, query and body echoed on success. */
async function answer(base: string, request: Case) {
  const response = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.headers ?? {},
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Requests of every operation: as the contract wants them, and broken in each way a parameter or body can be. */
function cases(): Case[] {
  const out: Case[] = [];
  const json = { "content-type": "application/json" };
  for (const operation of operations) {
    const path = operation.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => `${PREFIXES[name] ?? "x"}_${ID}`);
    const method = operation.method.toUpperCase();
    const spec = (doc.paths as Record<string, Record<string, Record<string, unknown>>>)[operation.path]?.[
      operation.method
    ] as { parameters?: { $ref?: string; name?: string; in?: string }[]; requestBody?: unknown };
    const hasBody = spec.requestBody !== undefined;
    const body = hasBody ? { headers: json, body: "{}" } : {};
    const id = operation.operationId;
    out.push({ name: `${id} as sent`, method, path, ...body });
    out.push({ name: `${id} with another method`, method: method === "PUT" ? "PATCH" : "PUT", path, ...body });
    out.push({ name: `${id} with OPTIONS`, method: "OPTIONS", path });
    out.push({ name: `${id} in capitals`, method, path: path.toUpperCase(), ...body });
    out.push({ name: `${id} with a trailing slash`, method, path: `${path}/`, ...body });
    out.push({ name: `${id} one level deeper`, method, path: `${path}/more`, ...body });
    out.push({ name: `${id} with an unknown query parameter`, method, path: `${path}?nope=1`, ...body });
    if (path.includes(ID)) out.push({ name: `${id} with a bad id`, method, path: path.replace(ID, "x"), ...body });
    for (const raw of spec.parameters ?? []) {
      const ref = raw.$ref?.replace(/^.+\//, "");
      const parameter = ref
        ? ((doc.components as { parameters: Record<string, { name: string; in: string }> }).parameters[ref] ?? raw)
        : raw;
      if (parameter.in === "query") {
        for (const value of [
          "",
          "abc",
          "-1",
          "0",
          "1",
          "20",
          "101",
          "1.5",
          "99999999999",
          "new",
          '"new"',
          "2026-01-01T00:00:00Z",
        ]) {
          const query = `${encodeURIComponent(parameter.name ?? "")}=${encodeURIComponent(value)}`;
          out.push({ name: `${id} ?${query}`, method, path: `${path}?${query}`, ...body });
        }
        out.push({
          name: `${id} ${parameter.name} twice`,
          method,
          path: `${path}?${parameter.name}=1&${parameter.name}=2`,
          ...body,
        });
      }
      if (parameter.in === "header" && parameter.name) {
        for (const value of ["x", " ", "k".repeat(256), "ünïcode"]) {
          out.push({
            name: `${id} ${parameter.name}: ${value.slice(0, 8)}`,
            method,
            path,
            headers: { ...json, [parameter.name]: value },
            ...(hasBody ? { body: "{}" } : {}),
          });
        }
      }
    }
    if (hasBody) {
      for (const [name, headers, text] of [
        ["no content type", {}, "{}"],
        ["text/plain", { "content-type": "text/plain" }, "{}"],
        ["charset", { "content-type": "application/json; charset=utf-8" }, "{}"],
        ["a problem+json type", { "content-type": "application/problem+json" }, "{}"],
        ["an array", json, "[]"],
        ["an unknown property", json, '{"nope":1}'],
        ["null fields", json, '{"email":null,"name":null,"status":null,"url":null,"events":null}'],
        ["wrong types", json, '{"email":1,"name":[],"status":"x","url":true,"events":"x","tags":"x","scopes":1}'],
        [
          "typical fields",
          json,
          '{"email":"a@example.com","name":"A","url":"https://example.com/h","events":["lead.captured"],"subject":"S","lead_id":"lead_01JD3Z6Q4W2YB7K8N9P0R5S6T7"}',
        ],
        ["no body", json, undefined],
      ] as const) {
        out.push({ name: `${id} body: ${name}`, method, path, headers, ...(text !== undefined ? { body: text } : {}) });
      }
    }
  }
  out.push({ name: "an unknown path", method: "GET", path: "/v1/nothing" });
  out.push({ name: "the root", method: "GET", path: "/" });
  return out;
}

describe("the contract's request check", () => {
  let ours: { url: string; close(): void };
  let theirs: { url: string; close(): void };
  beforeAll(async () => {
    ours = await serve([checkedBy(compileContract(doc, { formats: { "date-time": isStorableDateTime } }))]);
    theirs = await serve([
      ...OpenApiValidator.middleware({
        apiSpec: { ...doc, servers: [{ url: "/" }] } as never,
        validateRequests: { allowUnknownQueryParameters: false, allErrors: true },
        validateResponses: false,
        validateSecurity: false,
        fileUploader: false,
        ignoreUndocumented: false,
        formats: { "date-time": { type: "string", validate: isStorableDateTime } },
      }),
      echoMatched,
    ]);
  });
  afterAll(() => {
    ours.close();
    theirs.close();
  });

  const all = cases();
  it("covers every operation with requests that pass and requests that fail", () => {
    expect(all.length).toBeGreaterThan(operations.length * 8);
  });

  it.each(all)("answers $name as express-openapi-validator did", async (request) => {
    const [mine, reference] = await Promise.all([answer(ours.url, request), answer(theirs.url, request)]);
    expect(mine).toEqual(reference);
  });

  it.each([
    ["brackets in a query name, which the old validator read as nesting", "/v1/leads?limit[]=5", "query.limit[]"],
    ["a bracketed query name alone, which the old validator dropped", "/v1/leads?[a]=1", "query.[a]"],
  ])("refuses %s: a 400 naming the parameter", async (_, path, field) => {
    const { status, body } = await answer(ours.url, { name: "", method: "GET", path });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: field }] });
  });

  it("refuses a path parameter that is not valid percent-encoding as a 400 naming the path", async () => {
    const { status, body } = await answer(ours.url, { name: "", method: "GET", path: "/v1/leads/%E0%A4%A" });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ message: "malformed URI" }] });
  });
});
