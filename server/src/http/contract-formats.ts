/**
 * The `format`s of the contract, one set for every check of it: express-openapi-validator's (api-router.ts) and the
 * batch items' (schema-check.ts). Two checks of one schema must give one verdict, or a value is refused in a batch
 * item and taken by `POST /v1/leads`, then fails its own `format` in every answer and event that carries it.
 *
 * ajv-formats in its full mode: its fast mode (the validator's default) takes `a..b@example.com`, `.a@example.com`
 * and `a@b` as e-mail addresses (RFC 5321 §4.1.2 has no empty dot-atom part, and its full regex asks for a domain
 * with a dot), and `https://1.1.1.1/é` or `https://1.1.1.1/a|b` as URIs (RFC 3986 §3.3 allows neither in a path:
 * a URI is ASCII, `|` is no pchar). Independent readers of the documents (Schemathesis's jsonschema, code
 * generators' validators) check the RFCs, as the full mode does. `date-time` is ours: RFC 3339 §5.6 within what
 * PostgreSQL's timestamptz can hold (storable.ts).
 */
import type { Ajv } from "ajv";
import addFormats, { type FormatsPluginOptions } from "ajv-formats";
import { isStorableDateTime } from "../lib/date-time.ts";

/** The options of ajv-formats for every check of the contract. */
export const AJV_FORMATS: FormatsPluginOptions = { mode: "full" };

/** The formats that replace ajv-formats' own, by name. */
export const OWN_FORMATS = {
  "date-time": { type: "string" as const, validate: isStorableDateTime },
};

/** Gives an Ajv of the contract's own (schema-check.ts) the formats that the validator checks. */
export function addContractFormats(ajv: Ajv): void {
  addFormats.default(ajv, AJV_FORMATS);
  for (const [name, format] of Object.entries(OWN_FORMATS)) ajv.addFormat(name, format);
}
