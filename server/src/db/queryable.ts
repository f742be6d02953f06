/**
 * What a store or a service runs its SQL on: the pool, or the client of a transaction (`withTransaction`), so that
 * one function serves a read on its own and a step of a larger write alike. Only `query`: what begins, commits and
 * releases a transaction stays with the caller that opened it.
 */
import type pg from "pg";

export type Queryable = Pick<pg.PoolClient, "query">;
