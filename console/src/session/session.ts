/** The signed-in session: one query (`GET /api/auth/session`), shared by every page. */
import type { components } from "@service/spec/schema";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { createContext, useContext } from "react";
import { api } from "../api/client.ts";
import { unwrap } from "../api/errors.ts";

export type Session = components["schemas"]["Session"];

export const sessionQuery = queryOptions({
  queryKey: ["session"],
  queryFn: () => unwrap(api.GET("/api/auth/session")),
  retry: false,
  staleTime: 60_000,
});

export function useSessionQuery() {
  return useQuery(sessionQuery);
}

export const SessionContext = createContext<Session | undefined>(undefined);

/** The session of a page behind `RequireSession`. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession() outside RequireSession");
  return session;
}

/** The CSRF header every session write needs (`X-CSRF-Token`, from the session). */
export function useCsrfHeader(): { "X-CSRF-Token": string } {
  return { "X-CSRF-Token": useSession().csrf_token };
}
