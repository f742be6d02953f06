/**
 * Recover failed deliveries since a time: first a dry run says how many deliveries (and, if chosen, missed events)
 * would be sent again; Confirm then sends exactly that window (the dry run's `until`), so that the count confirmed
 * is the count sent, not whatever failed in between.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useRef, useState } from "react";
import { api } from "../../api/client.ts";
import { describeError, fieldErrors, unwrap } from "../../api/errors.ts";
import { queryKeys, type WebhookRecovery } from "../../api/queries.ts";
import { Dialog } from "../../components/dialog.tsx";
import { Field } from "../../components/field.tsx";
import { Notice } from "../../components/states.tsx";
import { fromDateTimeLocal, toDateTimeLocal } from "../../lib/datetime-local.ts";
import { countOf, formatDateTime } from "../../lib/format.ts";
import { useCsrfHeader } from "../../session/session.ts";

/** What the dialog opens with: the window's start, missed events or not, and whether the endpoint was just enabled. */
export interface RecoverStart {
  since: Date;
  includeMissed: boolean;
  enabledAgain: boolean;
}

const DAY_MS = 24 * 3600 * 1000;

/** Recover's usual start: the last 24 hours, without missed events (an enabled endpoint misses none). */
export function lastDay(): RecoverStart {
  return { since: new Date(Date.now() - DAY_MS), includeMissed: false, enabledAgain: false };
}

function counts(recovery: WebhookRecovery): string {
  const failed = countOf(recovery.failed_deliveries, "failed delivery", "failed deliveries");
  return `${failed} and ${countOf(recovery.missed_events, "missed event", "missed events")}`;
}

function RecoverForm({ webhookId, start, onDone }: { webhookId: string; start: RecoverStart; onDone: () => void }) {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const missedId = useId();
  const sinceInput = useRef<HTMLInputElement>(null);
  const [since, setSince] = useState(toDateTimeLocal(start.since));
  const [includeMissed, setIncludeMissed] = useState(start.includeMissed);
  const [tried, setTried] = useState(false);
  const recover = (body: { since: string; until?: string; include_missed: boolean; dry_run: boolean }) =>
    unwrap(
      api.POST("/api/workspace/webhooks/{webhook_id}/recover", {
        params: { path: { webhook_id: webhookId }, header: csrf },
        body,
      }),
    );
  const preview = useMutation({
    mutationFn: (sinceIso: string) => recover({ since: sinceIso, include_missed: includeMissed, dry_run: true }),
    onError: () => sinceInput.current?.focus(),
  });
  const send = useMutation({
    mutationFn: ({ since, until, include_missed }: WebhookRecovery) =>
      recover({ since, until, include_missed, dry_run: false }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.webhook(webhookId) }),
  });
  const sinceIso = fromDateTimeLocal(since);
  const sinceProblem =
    sinceIso === undefined
      ? "Enter the date and time to recover from."
      : Date.parse(sinceIso) >= Date.now()
        ? "Choose a time in the past."
        : undefined;
  const apiProblem = fieldErrors(preview.error);
  const sinceError = (tried ? sinceProblem : undefined) ?? apiProblem.get("since") ?? apiProblem.get("until");

  // A change of the window makes the count shown stale: ask again.
  function change(apply: () => void) {
    apply();
    preview.reset();
    send.reset();
  }
  function check(event: FormEvent) {
    event.preventDefault();
    setTried(true);
    if (sinceProblem || !sinceIso) {
      sinceInput.current?.focus();
      return;
    }
    preview.mutate(sinceIso);
  }

  if (send.data) {
    return (
      <div>
        <Notice tone="success">
          Recovery started: {counts(send.data)} are being sent again, at this endpoint's pace. Their attempts appear
          under Deliveries.
        </Notice>
        <div className="dialog-actions">
          <button type="button" className="button button-primary" onClick={onDone}>
            Done
          </button>
        </div>
      </div>
    );
  }
  const found = preview.data;
  const nothing = found && found.failed_deliveries + found.missed_events === 0;
  return (
    <form onSubmit={check} noValidate>
      {start.enabledAgain ? <p>The endpoint is enabled again. Send it what it missed while it was disabled?</p> : null}
      <p>
        Every delivery made since the time you choose that ended failed is sent once more, oldest first, each with its
        original <code>webhook-id</code> and body, so that your receiver can drop one it already processed.
      </p>
      <Field
        ref={sinceInput}
        label="Recover since"
        type="datetime-local"
        required
        max={toDateTimeLocal(new Date())}
        hint="In your time zone."
        error={sinceError}
        value={since}
        onChange={(event) => change(() => setSince(event.target.value))}
      />
      <div className="checkbox">
        <input
          id={missedId}
          type="checkbox"
          checked={includeMissed}
          onChange={(event) => change(() => setIncludeMissed(event.target.checked))}
          aria-describedby={`${missedId}-hint`}
        />
        <label htmlFor={missedId}>Include missed events</label>
        <span id={`${missedId}-hint`} className="checkbox-hint">
          Also send the events of its types that happened while the endpoint was disabled and never reached it.
        </span>
      </div>
      {found && !nothing ? (
        <Notice tone="info">
          {counts(found)} will be sent again (made from {formatDateTime(found.since)} to {formatDateTime(found.until)}).
        </Notice>
      ) : null}
      {nothing ? (
        <Notice tone="info">Nothing to send again: no failed delivery and no missed event then.</Notice>
      ) : null}
      {preview.error && !sinceError ? <Notice tone="error">{describeError(preview.error)}</Notice> : null}
      {send.error ? <Notice tone="error">{describeError(send.error)}</Notice> : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
        {found && !nothing ? (
          <button
            type="button"
            className="button button-primary"
            disabled={send.isPending}
            onClick={() => send.mutate(found)}
          >
            Confirm
          </button>
        ) : (
          <button type="submit" className="button button-primary" disabled={preview.isPending}>
            Check what will be sent
          </button>
        )}
      </div>
    </form>
  );
}

export function RecoverDialog({
  webhookId,
  start,
  onClose,
}: {
  webhookId: string;
  start: RecoverStart | undefined;
  onClose: () => void;
}) {
  return (
    <Dialog open={start !== undefined} title="Recover failed deliveries" onClose={onClose}>
      {start ? <RecoverForm webhookId={webhookId} start={start} onDone={onClose} /> : null}
    </Dialog>
  );
}
