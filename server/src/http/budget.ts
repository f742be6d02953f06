/**
 * The request budget of an authenticated caller, checked after authentication: an API key's budget
 * on `/v1`, a signed-in user's on `/api/workspace` (the session's own `/api/auth` calls, sign-out included, are
 * never refused for it). The limiter decides; this turns the decision into headers or a 429/503 problem.
 */

/** Spends one request of the caller's budget: the headers to answer with, or throws the 429 or 503. */
export type RequestBudget = (principal: Principal, path: string) => Promise<Record<string, string> | undefined>;

import type { Principal } from "../domain/principal.ts";
import { AppError } from "../errors.ts";
import type { Limiters } from "../rate-limit/limiters.ts";
import { LIMIT_CHAINS, type LimitDecision } from "../rate-limit/policy.ts";

export function requestBudget(limiters: Limiters): RequestBudget {
  return async function budget(principal, path) {
    if (principal.kind !== "api_key" && !path.startsWith("/api/workspace")) return undefined;
    const chain = principal.kind === "api_key" ? LIMIT_CHAINS.apiKey : LIMIT_CHAINS.session;
    const decision = await limiters.check(chain, () => principal.id);
    refuseUnlessAllowed(decision, "Request budget spent");
    return decision.headers;
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
