/** Loading, empty and error states, the same on every page. */
import { type ReactNode, useEffect, useRef } from "react";
import { describeError } from "../api/errors.ts";

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{title}</p>
      {children}
    </div>
  );
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <p className="state-title">This could not be loaded.</p>
      <p>{describeError(error)}</p>
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/**
 * A message after an action: errors are announced at once (role=alert), the rest politely. An error also scrolls
 * into view: in a dialog whose actions stay in view, the button can be pressed with the error's place scrolled away.
 */
export function Notice({ tone, children }: { tone: "error" | "success" | "info" | "warning"; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (tone === "error") ref.current?.scrollIntoView({ block: "nearest" });
  }, [tone]);
  return (
    <div ref={ref} className={`notice notice-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}
