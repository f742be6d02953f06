/**
 * Add new key: a name, scopes grouped by resource (none checked at first: least privilege), an optional expiry.
 * The new key is shown once. Create key stays enabled: pressed too early, it says at the fields what is missing and
 * moves focus to the first of them (a disabled button could not be focused and said nothing about why).
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useId, useRef, useState } from "react";
import { api } from "../../api/client.ts";
import { describeError, unwrap } from "../../api/errors.ts";
import { type ApiKeyWithSecret, queryKeys } from "../../api/queries.ts";
import { CheckboxGroup } from "../../components/checkbox-group.tsx";
import { Dialog } from "../../components/dialog.tsx";
import { Field } from "../../components/field.tsx";
import { SecretField } from "../../components/secret-field.tsx";
import { Notice } from "../../components/states.tsx";
import { describeScope, groupScopes, type Scope, scopesOf } from "../../lib/scopes.ts";
import { useMode } from "../../session/mode.ts";
import { useCsrfHeader } from "../../session/session.ts";

const EXPIRY_DAYS = [
  { days: 0, label: "Never" },
  { days: 7, label: "In 7 days" },
  { days: 30, label: "In 30 days" },
  { days: 90, label: "In 90 days" },
  { days: 365, label: "In 1 year" },
];

const KEY_WARNING =
  "Copy the key now and keep it somewhere safe, such as a secrets manager: it will not be shown again.";

function CreateKeyForm({ onCreated, onCancel }: { onCreated: (key: ApiKeyWithSecret) => void; onCancel: () => void }) {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const expiryId = useId();
  const scopesId = useId();
  const nameInput = useRef<HTMLInputElement>(null);
  const scopeGroups = useRef<HTMLFieldSetElement>(null);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Set<Scope>>(new Set());
  const mode = useMode();
  const groups = groupScopes(scopesOf(mode));
  const [expiryDays, setExpiryDays] = useState(0);
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/workspace/api-keys", {
          params: { header: csrf },
          body: {
            name: name.trim(),
            scopes: [...scopes],
            ...(expiryDays > 0 ? { expires_at: new Date(Date.now() + expiryDays * 86_400_000).toISOString() } : {}),
          },
        }),
      ),
    onSuccess: (key) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys });
      onCreated(key);
    },
  });
  const [tried, setTried] = useState(false);
  const nameMissing = name.trim() === "";
  const scopesMissing = scopes.size === 0;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (nameMissing || scopesMissing) {
      setTried(true);
      if (nameMissing) nameInput.current?.focus();
      else scopeGroups.current?.querySelector("input")?.focus();
      return;
    }
    create.mutate();
  }

  return (
    <form onSubmit={submit} noValidate>
      <Field
        ref={nameInput}
        label="Name"
        required
        maxLength={100}
        hint="Who uses it, so that you know what breaks if you revoke it: “Zapier”, “CRM sync”."
        error={tried && nameMissing ? "Enter a name for the key." : undefined}
        value={name}
        onChange={(event) => setName(event.target.value)}
      />
      <fieldset
        ref={scopeGroups}
        className="scopes"
        aria-describedby={`${scopesId}-hint${tried && scopesMissing ? ` ${scopesId}-error` : ""}`}
      >
        <legend>Scopes</legend>
        <p id={`${scopesId}-hint`} className="field-hint">
          Choose what this key may do. Grant the fewest a client needs.
        </p>
        {tried && scopesMissing ? (
          <p id={`${scopesId}-error`} className="field-error">
            Choose at least one scope.
          </p>
        ) : null}
        <div className="scope-groups">
          {groups.map((group) => (
            <CheckboxGroup
              key={group.resource}
              legend={group.label}
              options={group.scopes}
              checked={scopes}
              onChange={setScopes}
              describe={describeScope}
            />
          ))}
        </div>
      </fieldset>
      <div className="field">
        <label htmlFor={expiryId}>Expiry</label>
        <select id={expiryId} value={expiryDays} onChange={(event) => setExpiryDays(Number(event.target.value))}>
          {EXPIRY_DAYS.map((option) => (
            <option key={option.days} value={option.days}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      {create.error ? <Notice tone="error">{describeError(create.error)}</Notice> : null}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          Create key
        </button>
      </div>
    </form>
  );
}

export function NewKey({
  apiKey,
  children,
  onDone,
}: {
  apiKey: ApiKeyWithSecret;
  children?: ReactNode;
  onDone: () => void;
}) {
  return (
    <div>
      <Notice tone="success">
        Key “{apiKey.name}” is ready, with {apiKey.scopes.join(", ")}.
      </Notice>
      <SecretField label="API key" value={apiKey.key} warning={KEY_WARNING} />
      {children}
      <div className="dialog-actions">
        <button type="button" className="button button-primary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

export function CreateKeyDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [created, setCreated] = useState<ApiKeyWithSecret | undefined>(undefined);
  const close = () => {
    setCreated(undefined);
    onClose();
  };
  return (
    <Dialog open={open} title={created ? "Your new API key" : "Add new key"} onClose={close}>
      {created ? <NewKey apiKey={created} onDone={close} /> : <CreateKeyForm onCreated={setCreated} onCancel={close} />}
    </Dialog>
  );
}
