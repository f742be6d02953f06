/**
 * express-openapi-validator 5.6.2 as patches/express-openapi-validator+5.6.2.patch carries it, on the contract's own
 * document: each route's matcher compiled once, and one compiled validator per operation and body media type,
 * whatever the request's Content-Type adds; Express's `strict routing` honoured, which path-to-regexp 8 reads as
 * `trailing: false`. All fail on the published package (27 compiles for every `GET /v1/leads`; a new validator kept
 * for every new Content-Type parameter; `/v1/leads/` matched as `/v1/leads` whatever the setting).
 */
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOpenApiDocument } from "../../server/src/http/openapi-document.ts";

const require = createRequire(import.meta.url);
const validatorPath = require.resolve("express-openapi-validator");
const OpenApiValidator = require("express-openapi-validator") as typeof import("express-openapi-validator");
/** path-to-regexp as the validator resolves it: its calls go through this exports object. */
const pathToRegexp = createRequire(validatorPath)("path-to-regexp") as {
  pathToRegexp: (...args: unknown[]) => unknown;
};
const middlewares = require(join(dirname(validatorPath), "middlewares")) as {
  RequestValidator: { prototype: { validate: (...args: unknown[]) => unknown } };
};

let server: Server;
let app: express.Express;
let base: string;
let compiles = 0;
let requestValidator: { middlewareCache: Record<string, unknown> } | undefined;
const restore: (() => void)[] = [];

beforeAll(async () => {
  const compile = pathToRegexp.pathToRegexp;
  pathToRegexp.pathToRegexp = (...args: unknown[]) => {
    compiles++;
    return compile(...args);
  };
  restore.push(() => {
    pathToRegexp.pathToRegexp = compile;
  });
  const validate = middlewares.RequestValidator.prototype.validate;
  middlewares.RequestValidator.prototype.validate = function (this: typeof requestValidator, ...args: unknown[]) {
    requestValidator = this;
    return validate.apply(this, args);
  };
  restore.push(() => {
    middlewares.RequestValidator.prototype.validate = validate;
  });

  app = express();
  app.use(express.json({ type: ["application/json", "application/*+json"] }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: loadOpenApiDocument().doc as never,
      validateRequests: true,
      validateSecurity: false,
      fileUploader: false,
    }),
  );
  app.get("/v1/leads", (_req, res) => {
    res.json({ object: "list", data: [], has_more: false, next_cursor: null });
  });
  app.post("/v1/leads", (_req, res) => {
    res.status(201).json({});
  });
  app.use((error: { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(error.status ?? 500).json({ status: error.status });
  });
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const undo of restore) undo();
  await new Promise((resolve) => server?.close(resolve));
});

const get = (path: string) => fetch(`${base}${path}`).then((response) => response.status);
const post = (contentType: string, body: unknown) =>
  fetch(`${base}/v1/leads`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: JSON.stringify(body),
  }).then((response) => response.status);

describe("express-openapi-validator, as patches/ carries it", () => {
  it("compiles each route's matcher once, not on every request", async () => {
    expect(await get("/v1/leads?limit=5")).toBe(200);
    expect(await get("/v1/no-such-thing")).toBe(404);
    compiles = 0;
    for (let i = 0; i < 20; i++) {
      expect(await get("/v1/leads?limit=5")).toBe(200);
      expect(await get("/v1/no-such-thing")).toBe(404);
    }
    expect(compiles).toBe(0);
  });

  it("keeps one validator per operation and media type, whatever parameters the Content-Type carries", async () => {
    expect(await post("application/json", { name: "Ada" })).toBe(201);
    const cached = Object.keys(requestValidator?.middlewareCache ?? {}).length;
    for (let i = 0; i < 50; i++) {
      expect(await post(`application/json; x=${Math.random()}`, { name: "Ada" })).toBe(201);
    }
    expect(Object.keys(requestValidator?.middlewareCache ?? {})).toHaveLength(cached);
    // Still validated by the same schema: a wrong body under a parameterised type is refused.
    expect(await post("application/json; charset=utf-8", { name: 42 })).toBe(400);
    expect(await post(`application/json; x=${Math.random()}`, { name: 42 })).toBe(400);
  });

  it("refuses a trailing slash under Express's strict routing, and takes it otherwise", async () => {
    try {
      app.set("strict routing", true);
      expect(await get("/v1/leads")).toBe(200);
      expect(await get("/v1/leads/")).toBe(404);
    } finally {
      app.set("strict routing", false);
    }
    expect(await get("/v1/leads/")).toBe(200);
  });
});
