/**
 * The token of an e-mail link (`/verify-email#token=…`). It travels in the fragment, which browsers never send to
 * servers; once read, it is taken out of the address bar so that history and screenshots do not keep it. Reading
 * twice on the same page (a re-render) returns the same token.
 */
let taken: { path: string; token: string } | undefined;

export function takeHashToken(): string | undefined {
  const path = window.location.pathname;
  const token = new URLSearchParams(window.location.hash.slice(1)).get("token");
  if (window.location.hash) {
    window.history.replaceState(window.history.state, "", path + window.location.search);
  }
  if (token) taken = { path, token };
  return taken?.path === path ? taken.token : undefined;
}
