/**
 * Add endpoint: an HTTPS URL and the events to receive; the signing secret is shown once. Create endpoint stays
 * enabled and, pressed too early, says at the fields what is missing (as Add new key does).
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { Link } from "wouter";
import { api } from "../../api/client.ts";
import { ApiError, describeError, unwrap } from "../../api/errors.ts";
import { type EventType, queryKeys, type WebhookWithSecret } from "../../api/queries.ts";
import { CheckboxGroup } from "../../components/checkbox-group.tsx";
import { Dialog } from "../../components/dialog.tsx";
import { Field } from "../../components/field.tsx";
import { SecretField } from "../../components/secret-field.tsx";
import { Notice } from "../../components/states.tsx";
import { EVENT_TYPES } from "../../generated/enums.ts";
import { webhookPath } from "../../routes.ts";
import { useCsrfHeader } from "../../session/session.ts";

export const SECRET_WARNING =
  "Copy the secret now and store it with your receiver: it verifies every delivery, and it will not be shown again.";

export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  "lead.captured": "A lead is created",
  "lead.updated": "A lead changes (with the changed fields)",
  "lead.deleted": "A lead is deleted",
  "conversation.created": "A conversation starts",
  "conversation.updated": "A conversation changes: state, snooze, new message (with the changed fields)",
  "message.created": "A message is added to a conversation",
  "ticket.updated": "A ticket is created or changes (with the changed fields)",
  "attribute_definition.created": "An attribute definition is made",
  "attribute_definition.updated": "An attribute definition changes (with the changed fields)",
  "attribute_definition.archived": "An attribute definition is archived",
};

/**
 * Why the server refused a URL, as a sentence: the contract's own check of `body.url` is its https:// pattern (whose
 * validator wording is for programs), the server's later checks (credentials, a private address) say why themselves.
 */
function urlRefusal(error: unknown): string {
  if (error instanceof ApiError && error.code === "VALIDATION_FAILED") {
    if (error.problem?.errors?.some((field) => field.path === "body.url")) {
      return "The endpoint URL was refused: it must start with https://.";
    }
  }
  if (error instanceof ApiError && error.code === "WEBHOOK_URL_NOT_ALLOWED") {
    return `The endpoint URL was refused: ${error.problem?.detail ?? error.message}`;
  }
  return describeError(error);
}

function CreateEndpointForm({
  onCreated,
  onCancel,
}: {
  onCreated: (webhook: WebhookWithSecret) => void;
  onCancel: () => void;
}) {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const urlInput = useRef<HTMLInputElement>(null);
  const eventsGroup = useRef<HTMLFieldSetElement>(null);
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<Set<EventType>>(new Set());
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/workspace/webhooks", {
          params: { header: csrf },
          body: {
            url: url.trim(),
            events: [...events],
            ...(description.trim() ? { description: description.trim() } : {}),
          },
        }),
      ),
    onSuccess: (webhook) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.webhooks });
      onCreated(webhook);
    },
  });
  const [tried, setTried] = useState(false);
  const urlMissing = url.trim() === "";
  const eventsMissing = events.size === 0;
  function submit(event: FormEvent) {
    event.preventDefault();
    if (urlMissing || eventsMissing) {
      setTried(true);
      if (urlMissing) urlInput.current?.focus();
      else eventsGroup.current?.querySelector("input")?.focus();
      return;
    }
    create.mutate();
  }
  return (
    <form onSubmit={submit} noValidate>
      <Field
        ref={urlInput}
        label="Endpoint URL"
        type="url"
        inputMode="url"
        required
        placeholder="https://example.com/webhooks"
        hint="HTTPS only. Private and local addresses are refused unless the service allows them."
        error={tried && urlMissing ? "Enter the URL of your endpoint." : undefined}
        value={url}
        onChange={(event) => setUrl(event.target.value)}
      />
      <Field
        label="Description"
        maxLength={500}
        hint="Optional."
        value={description}
        onChange={(event) => setDescription(event.target.value)}
      />
      <CheckboxGroup
        ref={eventsGroup}
        legend="Events to send"
        options={EVENT_TYPES}
        checked={events}
        onChange={setEvents}
        describe={(type) => EVENT_DESCRIPTIONS[type]}
        error={tried && eventsMissing ? "Choose at least one event." : undefined}
      />
      {create.error ? <Notice tone="error">{urlRefusal(create.error)}</Notice> : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          Create endpoint
        </button>
      </div>
    </form>
  );
}

export function CreateEndpointDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [created, setCreated] = useState<WebhookWithSecret | undefined>(undefined);
  const close = () => {
    setCreated(undefined);
    onClose();
  };
  return (
    <Dialog open={open} title={created ? "Endpoint added" : "Add endpoint"} onClose={close}>
      {created ? (
        <div>
          <p>
            Deliveries to <span className="mono break">{created.url}</span> are signed with this secret.
          </p>
          <SecretField label="Signing secret" value={created.secret} warning={SECRET_WARNING} />
          <div className="dialog-actions">
            <Link href={webhookPath(created.id)} className="button" onClick={close}>
              Open endpoint
            </Link>
            <button type="button" className="button button-primary" onClick={close}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <CreateEndpointForm onCreated={setCreated} onCancel={close} />
      )}
    </Dialog>
  );
}
