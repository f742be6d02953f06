/** Request types of an operation, taken from the generated contract types. */
import type { operations } from "@service/spec/schema";

/** An operation of the contract, by its operationId. */
export type OperationId = keyof operations;

export type JsonBody<Op extends OperationId> = operations[Op] extends {
  requestBody?: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

export type QueryOf<Op extends OperationId> = operations[Op] extends { parameters: { query?: infer Query } }
  ? NonNullable<Query>
  : never;
