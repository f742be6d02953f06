/** An endpoint's actions: enable/disable, Rotate secret (the new one shown once), Send test event. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api } from "../../api/client.ts";
import { describeError, unwrap } from "../../api/errors.ts";
import { type EventType, queryKeys, type Webhook, type WebhookWithSecret } from "../../api/queries.ts";
import { ConfirmActions, Dialog } from "../../components/dialog.tsx";
import { SecretField } from "../../components/secret-field.tsx";
import { Notice } from "../../components/states.tsx";
import { EVENT_TYPES } from "../../generated/enums.ts";
import { useCsrfHeader } from "../../session/session.ts";
import { SECRET_WARNING } from "./webhook-create.tsx";

function useRefreshWebhook(id: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.webhook(id) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.webhooks, exact: true }),
    ]);
}

/**
 * Disable, or Enable; `onEnabled` hears when the endpoint was enabled again, with the time it had been disabled since
 * (null if the service did not keep it), to offer what it missed meanwhile.
 */
export function EnableToggle({
  webhook,
  onEnabled,
}: {
  webhook: Webhook;
  onEnabled?: (disabledSince: string | null) => void;
}) {
  const csrf = useCsrfHeader();
  const refresh = useRefreshWebhook(webhook.id);
  const update = useMutation({
    mutationFn: ({ enabled }: { enabled: boolean; disabledSince: string | null }) =>
      unwrap(
        api.PATCH("/api/workspace/webhooks/{webhook_id}", {
          params: { path: { webhook_id: webhook.id }, header: csrf },
          body: { enabled },
        }),
      ),
    onSuccess: async (_updated, { enabled, disabledSince }) => {
      await refresh();
      if (enabled) onEnabled?.(disabledSince);
    },
  });
  return (
    <>
      <button
        type="button"
        className="button"
        disabled={update.isPending}
        onClick={() => update.mutate({ enabled: !webhook.enabled, disabledSince: webhook.disabled_at })}
      >
        {webhook.enabled ? "Disable" : "Enable"}
      </button>
      {update.error ? <Notice tone="error">{describeError(update.error)}</Notice> : null}
    </>
  );
}

export function RotateSecret({ webhook }: { webhook: Webhook }) {
  const csrf = useCsrfHeader();
  const refresh = useRefreshWebhook(webhook.id);
  const [open, setOpen] = useState(false);
  const [rotated, setRotated] = useState<WebhookWithSecret | undefined>(undefined);
  const rotate = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/workspace/webhooks/{webhook_id}/rotate-secret", {
          params: { path: { webhook_id: webhook.id }, header: csrf },
        }),
      ),
    onSuccess: (result) => {
      setRotated(result);
      void refresh();
    },
  });
  const close = () => {
    setOpen(false);
    setRotated(undefined);
    rotate.reset();
  };
  return (
    <>
      <button type="button" className="button" onClick={() => setOpen(true)}>
        Rotate secret
      </button>
      <Dialog open={open} title={rotated ? "New signing secret" : "Rotate the signing secret?"} onClose={close}>
        {rotated ? (
          <>
            <SecretField label="Signing secret" value={rotated.secret} warning={SECRET_WARNING} />
            <p>
              For 24 hours every delivery carries two signatures, one with each secret: update your receiver before
              then.
            </p>
            <div className="dialog-actions">
              <button type="button" className="button button-primary" onClick={close}>
                Done
              </button>
            </div>
          </>
        ) : (
          <>
            <p>
              A new secret signs deliveries from now on. The current one keeps signing beside it for 24 hours, so that
              your receiver can switch without rejecting a delivery.
            </p>
            <ConfirmActions
              label="Rotate the secret"
              tone="primary"
              error={rotate.error}
              pending={rotate.isPending}
              onCancel={close}
              onConfirm={() => rotate.mutate()}
            />
          </>
        )}
      </Dialog>
    </>
  );
}

export function SendTestEvent({ webhook }: { webhook: Webhook }) {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const typeId = useId();
  const [type, setType] = useState<EventType>(webhook.events[0] ?? "lead.captured");
  const send = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/workspace/webhooks/{webhook_id}/test", {
          params: { path: { webhook_id: webhook.id }, header: csrf },
          body: { event_type: type },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.deliveries(webhook.id) }),
  });
  return (
    <section className="card" aria-labelledby="send-test">
      <h2 id="send-test">Test the endpoint</h2>
      <p>Sends a sample event of the chosen type to this endpoint, signed like any other delivery.</p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          send.mutate();
        }}
      >
        <div className="field">
          <label htmlFor={typeId}>Event type</label>
          <select id={typeId} value={type} onChange={(event) => setType(event.target.value as EventType)}>
            {EVENT_TYPES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button-primary" disabled={send.isPending}>
          Send test event
        </button>
      </form>
      {send.isSuccess ? <Notice tone="success">Test event queued: its delivery appears below.</Notice> : null}
      {send.error ? <Notice tone="error">{describeError(send.error)}</Notice> : null}
    </section>
  );
}
