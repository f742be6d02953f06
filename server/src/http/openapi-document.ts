/**
 * The contract as the server uses it: the committed OpenAPI 3.1 document of `@service/spec`, read once; and the same
 * contract as the other documents it is published in (3.0, 2.0), read when first asked for.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { parse } from "yaml";

export interface OpenApiDocument {
  /** The parsed document (treat as read-only). */
  readonly doc: Record<string, unknown>;
  readonly yaml: string;
  readonly json: string;
}

/** The documents `@service/spec` publishes: OpenAPI 3.1 (the server's own), 3.0 and 2.0 (Swagger). */
export type DocumentName = "openapi.yaml" | "openapi.3.0.yaml" | "swagger.2.0.yaml";

const cached = new Map<DocumentName, OpenApiDocument>();

export function loadOpenApiDocument(name: DocumentName = "openapi.yaml"): OpenApiDocument {
  const known = cached.get(name);
  if (known) return known;
  const file = createRequire(import.meta.url).resolve(`@service/spec/${name}`);
  const yaml = readFileSync(file, "utf8");
  const doc = parse(yaml) as Record<string, unknown>;
  const loaded = { doc, yaml, json: JSON.stringify(doc) };
  cached.set(name, loaded);
  return loaded;
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];

/** The console's choice of mode (`ModeHeader` in the TypeSpec), as Node.js names a request's headers. */
export const MODE_HEADER = "service-mode";

export interface OperationSpec {
  operationId: string;
  method: HttpMethod;
  /** The OpenAPI path template, e.g. `/v1/leads/{lead_id}`. */
  path: string;
  /** The security schemes that admit the call; empty for public operations. */
  schemes: string[];
  /** `x-required-scopes` of `/v1` operations. */
  scopes: string[];
  /** The query parameters whose schema is `type: integer`. */
  integerQuery: string[];
  /** Whether the operation takes the `Service-Mode` header (the console's operations on a mode's data). */
  modeHeader: boolean;
  /** `x-test-mode-only`: a live key is refused with 403 `TEST_MODE_ONLY`, before its scopes are looked at. */
  testModeOnly: boolean;
  /** Whether its success answers carry the object's `ETag` (domain/preconditions.ts). */
  etag: boolean;
  /** Whether it takes `If-None-Match`: a read that answers 304 when the object is still the one the client holds. */
  ifNoneMatch: boolean;
}

/** Every operation of the document's `paths`, in document order. */
export function listOperations(doc: Record<string, unknown>): OperationSpec[] {
  const operations: OperationSpec[] = [];
  const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as
        | {
            operationId?: string;
            security?: Record<string, string[]>[];
            "x-required-scopes"?: string[];
            "x-test-mode-only"?: boolean;
            parameters?: Record<string, unknown>[];
            responses?: Record<string, unknown>;
          }
        | undefined;
      if (!operation?.operationId) continue;
      const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      const parameters = (operation.parameters ?? []).map((parameter) => resolved(doc, parameter));
      const header = (name: string) =>
        parameters.some((parameter) => parameter.in === "header" && String(parameter.name).toLowerCase() === name);
      const successes = Object.entries(operation.responses ?? {}).filter(([status]) => status.startsWith("2"));
      operations.push({
        operationId: operation.operationId,
        method,
        path,
        schemes,
        scopes: operation["x-required-scopes"] ?? [],
        integerQuery: parameters
          .filter((parameter) => parameter.in === "query" && resolved(doc, parameter.schema).type === "integer")
          .map((parameter) => String(parameter.name)),
        modeHeader: header(MODE_HEADER),
        testModeOnly: operation["x-test-mode-only"] === true,
        etag: successes.some(([, response]) =>
          Object.hasOwn((resolved(doc, response).headers ?? {}) as object, "ETag"),
        ),
        ifNoneMatch: header("if-none-match"),
      });
    }
  }
  return operations;
}

/** A node of the document, its `$ref` followed (to `#/components/…`). */
function resolved(doc: Record<string, unknown>, node: unknown): Record<string, unknown> {
  const value = (node ?? {}) as Record<string, unknown>;
  if (typeof value.$ref !== "string") return value;
  const [, , group, name] = value.$ref.split("/");
  const components = (doc.components ?? {}) as Record<string, Record<string, unknown> | undefined>;
  return resolved(doc, components[group as string]?.[name as string]);
}
