/**
 * The console's only way to the service: openapi-fetch, typed by the contract's generated `paths`. Same origin,
 * so the HttpOnly session cookie rides along; session writes carry the CSRF token from `GET /api/auth/session`.
 */
import type { paths } from "@service/spec/schema";
import createClient, { type Middleware } from "openapi-fetch";
import { currentMode } from "../session/mode.ts";

/** Fired when a session request answers 401: the session ended (expired, signed out elsewhere, password reset). */
export const sessionEvents = new EventTarget();
export const SESSION_EXPIRED = "session-expired";

const sessionExpiry: Middleware = {
  onResponse({ request, response }) {
    if (response.status === 401 && new URL(request.url).pathname.startsWith("/api/workspace")) {
      sessionEvents.dispatchEvent(new Event(SESSION_EXPIRED));
    }
    return undefined;
  },
};

/** The mode the console is in, on every request of the workspace's settings (session/mode.ts). */
const mode: Middleware = {
  onRequest({ request }) {
    if (new URL(request.url).pathname.startsWith("/api/workspace/")) request.headers.set("Service-Mode", currentMode());
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? "http://localhost" });
api.use(sessionExpiry);
api.use(mode);
