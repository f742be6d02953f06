/**
 * A modal dialog on the native `<dialog>` element: the browser traps focus, makes the page behind it inert,
 * closes on Escape and returns focus to the button that opened it.
 */
import { type ReactNode, useEffect, useId, useRef } from "react";
import { describeError } from "../api/errors.ts";
import { Notice } from "./states.tsx";

export function Dialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={onClose}>
      {open ? (
        <>
          <h2 id={titleId}>{title}</h2>
          {children}
        </>
      ) : null}
    </dialog>
  );
}

/**
 * The end of a confirmation dialog: the action's error when it failed, then Cancel and the action's button, disabled
 * while the action runs.
 */
export function ConfirmActions({
  label,
  tone,
  error,
  pending,
  onCancel,
  onConfirm,
}: {
  label: string;
  tone: "primary" | "danger";
  error: unknown;
  pending: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <>
      {error ? <Notice tone="error">{describeError(error)}</Notice> : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className={`button button-${tone}`} disabled={pending} onClick={onConfirm}>
          {label}
        </button>
      </div>
    </>
  );
}
