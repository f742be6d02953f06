/**
 * The contract as the server uses it: the committed OpenAPI 3.1 document of `@service/spec`, read once.
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

let cached: OpenApiDocument | undefined;

export function loadOpenApiDocument(): OpenApiDocument {
  if (cached) return cached;
  const file = createRequire(import.meta.url).resolve("@service/spec/openapi.yaml");
  const yaml = readFileSync(file, "utf8");
  const doc = parse(yaml) as Record<string, unknown>;
  cached = { doc, yaml, json: JSON.stringify(doc) };
  return cached;
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch"] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];

export interface OperationSpec {
  operationId: string;
  method: HttpMethod;
  /** The OpenAPI path template, e.g. `/v1/leads/{lead_id}`. */
  path: string;
  /** The security schemes that admit the call; empty for public operations. */
  schemes: string[];
  /** `x-required-scopes` of `/v1` operations. */
  scopes: string[];
}

/** Every operation of the document's `paths`, in document order. */
export function listOperations(doc: Record<string, unknown>): OperationSpec[] {
  const operations: OperationSpec[] = [];
  const paths = (doc.paths ?? {}) as Record<string, Record<string, unknown>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as
        | { operationId?: string; security?: Record<string, string[]>[]; "x-required-scopes"?: string[] }
        | undefined;
      if (!operation?.operationId) continue;
      const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      operations.push({
        operationId: operation.operationId,
        method,
        path,
        schemes,
        scopes: operation["x-required-scopes"] ?? [],
      });
    }
  }
  return operations;
}
