/**
 * The address this browser last asked a verification link for (Sign up, Resend verification), so that Sign in after
 * the link starts with it filled in. The verify answer is `{ verified: true }`: the page that opens the link knows the
 * token only, never the address. The link usually opens in a new tab, whose sessionStorage is empty, so the address
 * waits in localStorage, under one key of this origin, no longer than a link works (24 hours,
 * `VERIFY_TOKEN_TTL_SECONDS` of the server's auth jobs), and is removed when a verification uses it. It holds what
 * this browser typed, nothing the server said, so it reveals nothing about which accounts exist.
 */
const STORAGE_KEY = "console.verification-email";
const KEEP_FOR_MS = 24 * 3600 * 1000;

type Store = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** localStorage, or nothing where the browser refuses it (storage disabled): the form then starts empty. */
function browserStore(): Store | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export function rememberVerificationEmail(email: string, now = Date.now(), store = browserStore()): void {
  try {
    store?.setItem(STORAGE_KEY, JSON.stringify({ email, until: now + KEEP_FOR_MS }));
  } catch {
    // A full or refused storage costs the convenience only.
  }
}

/** The remembered address, once: it is removed as it is read, and ignored once expired or malformed. */
export function takeVerificationEmail(now = Date.now(), store = browserStore()): string | undefined {
  try {
    const saved = store?.getItem(STORAGE_KEY);
    store?.removeItem(STORAGE_KEY);
    const { email, until } = JSON.parse(saved ?? "null") ?? {};
    return typeof email === "string" && email !== "" && typeof until === "number" && until > now ? email : undefined;
  } catch {
    return undefined;
  }
}
