/** Request types of an operation, taken from the generated contract types. */
import type { operations } from "@service/sdk/schema";

export type OperationName = keyof operations;

export type JsonBody<Op extends OperationName> = operations[Op] extends {
  requestBody?: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

export type QueryOf<Op extends OperationName> = operations[Op] extends { parameters: { query?: infer Query } }
  ? NonNullable<Query>
  : never;
