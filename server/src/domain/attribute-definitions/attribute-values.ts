/**
 * Whether a value fits an attribute definition's type and options (pure: the definitions' own checks and the writes
 * of leads, conversations and tickets call it). The formats are the contract's own: an `email` or `url` attribute
 * takes what `LeadCreate.email` or a webhook's `url` takes, and a `datetime` what every date-time field takes.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";
import { isStorableDateTime } from "../../lib/date-time.ts";

export type AttributeType =
  | "string"
  | "number"
  | "boolean"
  | "date"
  | "datetime"
  | "enum"
  | "multi_enum"
  | "email"
  | "url";

/** What a value is checked against. */
export interface AttributeRule {
  key: string;
  type: AttributeType;
  options: readonly string[];
  required: boolean;
  unique: boolean;
}

const EMAIL = fullFormats.email as RegExp;
const DATE = fullFormats.date as { validate: (value: string) => boolean };
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Why `value` does not fit the rule's type and options, in a sentence; undefined when it fits. `null` is "no value":
 * it fits any type (whether the rule needs one is `required`'s business).
 *
 * @example
 * valueProblem({ key: "plan", type: "enum", options: ["free", "pro"], required: false, unique: false }, "gold");
 * // "must be one of: free, pro"
 */
export function valueProblem(rule: AttributeRule, value: unknown): string | undefined {
  if (value === null) return undefined;
  switch (rule.type) {
    case "string":
      return typeof value === "string" ? undefined : "must be a string";
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? undefined : "must be a number";
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false";
    case "date":
      return typeof value === "string" && DATE_SHAPE.test(value) && DATE.validate(value) && !value.startsWith("0000")
        ? undefined
        : "must be a date such as 2026-11-28";
    case "datetime":
      return typeof value === "string" && isStorableDateTime(value)
        ? undefined
        : "must be an RFC 3339 date-time such as 2026-11-28T09:30:00Z";
    case "email":
      return typeof value === "string" && EMAIL.test(value) ? undefined : "must be an e-mail address";
    case "url":
      return typeof value === "string" && isWebUrl(value) ? undefined : "must be an http or https URL";
    case "enum":
      return typeof value === "string" && rule.options.includes(value)
        ? undefined
        : `must be one of: ${rule.options.join(", ")}`;
    case "multi_enum":
      return Array.isArray(value) &&
        value.every((item) => typeof item === "string" && rule.options.includes(item)) &&
        new Set(value).size === value.length
        ? undefined
        : `must be a list of distinct values of: ${rule.options.join(", ")}`;
  }
}

function isWebUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol, hostname } = new URL(value);
  return (protocol === "http:" || protocol === "https:") && hostname !== "";
}

/** The types whose values two objects can share: `unique` means something for them. */
export const UNIQUE_TYPES: ReadonlySet<AttributeType> = new Set([
  "string",
  "number",
  "date",
  "datetime",
  "enum",
  "email",
  "url",
]);
