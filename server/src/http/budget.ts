/**
 * The request budget of an authenticated caller, checked after authentication: an API key's budget
 * on `/v1`, a signed-in user's on `/api/workspace` (the session's own `/api/auth` calls, sign-out included, are
 * never refused for it). The limiter decides; this turns the decision into headers or a 429/503 problem.
 *
 * It also remembers, per process, which callers' last decision left room in their budget, so that a read may run
 * while the budget is checked (dispatch.ts): the answer still waits for the decision, and a caller whose budget
 * is spent (or not yet known) has its reads wait for the decision first, so that it costs no read. At most the
 * requests in flight when a budget runs out are read for nothing.
 */
import type { Principal } from "../domain/principal.ts";
import { AppError } from "../errors.ts";
import type { Limiters } from "../rate-limit/limiters.ts";
import { LIMIT_CHAINS, type LimitDecision } from "../rate-limit/policy.ts";

export interface RequestBudget {
  /**
   * Spends one request of the caller's budget on the route (its template): the headers to answer with, or throws the
   * 429 or 503. `free`: spends nothing (a 304: domain/preconditions.ts), and still refuses a caller over its budget.
   */
  spend(principal: Principal, route: string, free?: boolean): Promise<Record<string, string> | undefined>;
  /** Whether this caller's last decision in this process left room for another request. */
  hasRoom(principal: Principal): boolean;
}

/** Callers remembered with room; past it the memory starts again (unknown callers simply wait for the decision). */
const MAX_REMEMBERED = 10_000;

export function requestBudget(limiters: Limiters): RequestBudget {
  const withRoom = new Set<string>();
  const remember = (id: string, room: boolean) => {
    if (!room) withRoom.delete(id);
    else if (!withRoom.has(id)) {
      if (withRoom.size >= MAX_REMEMBERED) withRoom.clear();
      withRoom.add(id);
    }
  };
  const idOf = (principal: Principal) => `${principal.kind}:${principal.id}`;
  return {
    async spend(principal, route, free = false) {
      if (principal.kind !== "api_key" && !route.startsWith("/api/workspace")) return undefined;
      const chain = principal.kind === "api_key" ? LIMIT_CHAINS.apiKey : LIMIT_CHAINS.session;
      const decision = await limiters.consume(chain, () => principal.id, free ? 0 : 1);
      remember(idOf(principal), decision.outcome === "allow" && decision.remaining > 0);
      refuseUnlessAllowed(decision, "Request budget spent");
      return decision.headers;
    },
    hasRoom: (principal) => withRoom.has(idOf(principal)),
  };
}

/** A refused decision as its problem: 429 over the budget, 503 when the counters cannot be reached. */
function refuseUnlessAllowed(decision: LimitDecision, what: string): void {
  if (decision.outcome === "unavailable") {
    throw new AppError("SERVICE_UNAVAILABLE", { headers: decision.headers, cause: decision.cause });
  }
  if (decision.outcome === "reject" || decision.outcome === "throttle") {
    throw new AppError("RATE_LIMITED", {
      detail: `${what}; retry after ${decision.retryAfter} seconds.`,
      headers: decision.headers,
    });
  }
}
