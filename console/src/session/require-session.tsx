/** Pages of the signed-in workspace: without a session, to Sign in, and back here afterwards. */
import type { ReactNode } from "react";
import { Redirect, useLocation, useSearch } from "wouter";
import { ApiError } from "../api/errors.ts";
import { ErrorState, Loading } from "../components/states.tsx";
import { paths } from "../routes.ts";
import { SessionContext, useSessionQuery } from "./session.ts";

export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSessionQuery();
  const [location] = useLocation();
  const search = useSearch();
  if (session.isPending) return <Loading label="Loading your workspace…" />;
  if (session.error instanceof ApiError && session.error.status === 401) {
    const next = encodeURIComponent(location + (search ? `?${search}` : ""));
    return <Redirect to={`${paths.signIn}?next=${next}`} replace />;
  }
  if (session.error) return <ErrorState error={session.error} onRetry={() => void session.refetch()} />;
  return <SessionContext.Provider value={session.data}>{children}</SessionContext.Provider>;
}
