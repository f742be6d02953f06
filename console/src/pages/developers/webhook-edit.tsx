/**
 * Edit endpoint: its URL, events, description and throttles. Only what changed is sent (PATCH), an emptied throttle as
 * null. What is missing is said at the fields before anything is sent, as Add endpoint does; what the service refuses
 * is said at the field it names, and focus moves to the first of them.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { api } from "../../api/client.ts";
import { ApiError, describeError, fieldErrors, unwrap } from "../../api/errors.ts";
import { type EventType, queryKeys, type Webhook, type WebhookUpdate } from "../../api/queries.ts";
import { CheckboxGroup } from "../../components/checkbox-group.tsx";
import { Dialog } from "../../components/dialog.tsx";
import { Field } from "../../components/field.tsx";
import { Notice } from "../../components/states.tsx";
import { EVENT_TYPES } from "../../generated/enums.ts";
import { useCsrfHeader } from "../../session/session.ts";
import { EVENT_DESCRIPTIONS } from "./webhook-create.tsx";

/** A throttle's input: empty is null (no limit of its own, or the service's default). */
const limitValue = (value: number | null) => (value === null ? "" : String(value));
const parseLimit = (value: string) => (value.trim() === "" ? null : Number(value));

/** The service's words for a field, as a person reads them: its `^https://` pattern is written for programs. */
function refusalAt(error: unknown, field: string): string | undefined {
  if (field === "url" && error instanceof ApiError && error.code === "WEBHOOK_URL_NOT_ALLOWED") {
    return `Refused: ${error.problem?.detail ?? error.message}`;
  }
  const message = fieldErrors(error).get(field);
  if (field === "url" && message?.includes("pattern")) return "Refused: it must start with https://.";
  return message === undefined ? undefined : `Refused: ${message}.`;
}

/** The fields of the form in the order they are shown, so that focus goes to the first one refused. */
const FIELDS = ["url", "description", "events", "max_deliveries_per_second", "max_concurrent_deliveries"] as const;

function EditEndpointForm({ webhook, onDone }: { webhook: Webhook; onDone: () => void }) {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const controls = useRef(new Map<string, HTMLElement | null>());
  const at = (field: string) => (element: HTMLElement | null) => {
    controls.current.set(field, element);
  };
  const [url, setUrl] = useState(webhook.url);
  const [description, setDescription] = useState(webhook.description ?? "");
  const [events, setEvents] = useState<Set<EventType>>(new Set(webhook.events));
  const [perSecond, setPerSecond] = useState(limitValue(webhook.max_deliveries_per_second));
  const [concurrent, setConcurrent] = useState(limitValue(webhook.max_concurrent_deliveries));
  const [tried, setTried] = useState(false);

  function changes(): WebhookUpdate {
    const patch: WebhookUpdate = {};
    const chosen = EVENT_TYPES.filter((type) => events.has(type));
    if (url.trim() !== webhook.url) patch.url = url.trim();
    if (chosen.join() !== EVENT_TYPES.filter((type) => webhook.events.includes(type)).join()) patch.events = chosen;
    if ((description.trim() || null) !== webhook.description) patch.description = description.trim() || null;
    const rate = parseLimit(perSecond);
    if (rate !== webhook.max_deliveries_per_second) patch.max_deliveries_per_second = rate;
    const inFlight = parseLimit(concurrent);
    if (inFlight !== webhook.max_concurrent_deliveries) patch.max_concurrent_deliveries = inFlight;
    return patch;
  }
  const update = useMutation({
    mutationFn: (patch: WebhookUpdate) =>
      unwrap(
        api.PATCH("/api/workspace/webhooks/{webhook_id}", {
          params: { path: { webhook_id: webhook.id }, header: csrf },
          body: patch,
        }),
      ),
    onSuccess: async (updated) => {
      queryClient.setQueryData(queryKeys.webhook(webhook.id), updated);
      await queryClient.invalidateQueries({ queryKey: queryKeys.webhooks, exact: true });
      onDone();
    },
    onError: (error) => {
      const first = FIELDS.find((field) => refusalAt(error, field) !== undefined);
      const control = first ? controls.current.get(first) : undefined;
      (control instanceof HTMLFieldSetElement ? control.querySelector("input") : control)?.focus();
    },
  });

  const urlMissing = url.trim() === "";
  const eventsMissing = events.size === 0;
  const refused = (field: (typeof FIELDS)[number]) => (update.isPending ? undefined : refusalAt(update.error, field));
  const anyRefusedField = FIELDS.some((field) => refused(field) !== undefined);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (urlMissing || eventsMissing) {
      setTried(true);
      if (urlMissing) controls.current.get("url")?.focus();
      else controls.current.get("events")?.querySelector("input")?.focus();
      return;
    }
    const patch = changes();
    if (Object.keys(patch).length === 0) onDone();
    else update.mutate(patch);
  }

  return (
    <form onSubmit={submit} noValidate>
      <Field
        ref={at("url")}
        label="Endpoint URL"
        type="url"
        inputMode="url"
        required
        hint="HTTPS only. Deliveries not yet sent go to the new URL."
        error={tried && urlMissing ? "Enter the URL of your endpoint." : refused("url")}
        value={url}
        onChange={(event) => setUrl(event.target.value)}
      />
      <Field
        ref={at("description")}
        label="Description"
        maxLength={500}
        hint="Optional."
        error={refused("description")}
        value={description}
        onChange={(event) => setDescription(event.target.value)}
      />
      <CheckboxGroup
        ref={at("events")}
        legend="Events to send"
        options={EVENT_TYPES}
        checked={events}
        onChange={setEvents}
        describe={(type) => EVENT_DESCRIPTIONS[type]}
        error={tried && eventsMissing ? "Choose at least one event." : refused("events")}
      />
      <Field
        ref={at("max_deliveries_per_second")}
        label="Max deliveries per second"
        type="number"
        inputMode="numeric"
        min={1}
        max={1000}
        step={1}
        hint="1 to 1000 attempts started in any one second. Empty: no limit of its own."
        error={refused("max_deliveries_per_second")}
        value={perSecond}
        onChange={(event) => setPerSecond(event.target.value)}
      />
      <Field
        ref={at("max_concurrent_deliveries")}
        label="Max concurrent deliveries"
        type="number"
        inputMode="numeric"
        min={1}
        max={50}
        step={1}
        hint="1 to 50 attempts in flight at once. Empty: the service's default of 10."
        error={refused("max_concurrent_deliveries")}
        value={concurrent}
        onChange={(event) => setConcurrent(event.target.value)}
      />
      {update.error && !anyRefusedField ? <Notice tone="error">{describeError(update.error)}</Notice> : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={update.isPending}>
          Save changes
        </button>
      </div>
    </form>
  );
}

export function EditEndpoint({ webhook }: { webhook: Webhook }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="button" onClick={() => setOpen(true)}>
        Edit endpoint
      </button>
      <Dialog open={open} title="Edit endpoint" onClose={() => setOpen(false)}>
        <EditEndpointForm webhook={webhook} onDone={() => setOpen(false)} />
      </Dialog>
    </>
  );
}
