/**
 * The console's mode: live or test (the workspace's test data, made with `sk_test_` keys). Every request to
 * `/api/workspace/…` carries it as `Service-Mode` (api/client.ts), so every page shows and changes that mode's keys,
 * webhooks, deliveries and events only. Kept per tab (sessionStorage): a reload stays in the mode, another tab chooses its own.
 */
import { useSyncExternalStore } from "react";

export type Mode = "live" | "test";

const STORAGE_KEY = "service-mode";
const listeners = new Set<() => void>();

function stored(): Mode {
  try {
    return globalThis.sessionStorage?.getItem(STORAGE_KEY) === "test" ? "test" : "live";
  } catch {
    return "live";
  }
}

let current: Mode = stored();

export function currentMode(): Mode {
  return current;
}

export function setMode(mode: Mode): void {
  current = mode;
  try {
    globalThis.sessionStorage?.setItem(STORAGE_KEY, mode);
  } catch {
    // Storage refused (a private window's quota): the mode holds until the page is left.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useMode(): Mode {
  return useSyncExternalStore(subscribe, currentMode, () => "live");
}
