/** Rotate (a new key, shown once, while the old one keeps working for an overlap) and Revoke (at once). */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { api } from "../../api/client.ts";
import { describeError, unwrap } from "../../api/errors.ts";
import { type ApiKey, type ApiKeyWithSecret, queryKeys } from "../../api/queries.ts";
import { ConfirmActions, Dialog } from "../../components/dialog.tsx";
import { Notice } from "../../components/states.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useCsrfHeader } from "../../session/session.ts";
import { NewKey } from "./api-key-create.tsx";

const OVERLAPS = [
  { seconds: 86_400, label: "24 hours (recommended)" },
  { seconds: 3_600, label: "1 hour" },
  { seconds: 604_800, label: "7 days" },
  { seconds: 0, label: "No overlap: the old key stops at once" },
];

export function RotateKeyDialog({ apiKey, onClose }: { apiKey: ApiKey | undefined; onClose: () => void }) {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const overlapId = useId();
  const [overlap, setOverlap] = useState(86_400);
  const [rotated, setRotated] = useState<{ key: ApiKeyWithSecret; oldUntil: string } | undefined>(undefined);
  const rotate = useMutation({
    mutationFn: (key: ApiKey) =>
      unwrap(
        api.POST("/api/workspace/api-keys/{key_id}/rotate", {
          params: { path: { key_id: key.id }, header: csrf },
          body: { overlap_seconds: overlap },
        }),
      ),
    onSuccess: (key) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys });
      setRotated({ key, oldUntil: new Date(Date.now() + overlap * 1000).toISOString() });
    },
  });
  const close = () => {
    setRotated(undefined);
    rotate.reset();
    onClose();
  };
  return (
    <Dialog
      open={apiKey !== undefined}
      title={rotated ? "Your rotated API key" : `Rotate “${apiKey?.name ?? ""}”`}
      onClose={close}
    >
      {rotated ? (
        <NewKey apiKey={rotated.key} onDone={close}>
          <p>
            {overlap > 0
              ? `The previous key keeps working until ${formatDateTime(rotated.oldUntil)}: switch your clients to the new key before then.`
              : "The previous key has stopped working."}
          </p>
        </NewKey>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (apiKey) rotate.mutate(apiKey);
          }}
        >
          <p>
            Rotation makes a new key with the same name and scopes. During the overlap both keys work, so that you can
            deploy the new one without downtime; then the old one expires.
          </p>
          <div className="field">
            <label htmlFor={overlapId}>Old key keeps working for</label>
            <select id={overlapId} value={overlap} onChange={(event) => setOverlap(Number(event.target.value))}>
              {OVERLAPS.map((option) => (
                <option key={option.seconds} value={option.seconds}>
                  {option.label}
                </option>
              ))}
            </select>
          </div>
          {rotate.error ? <Notice tone="error">{describeError(rotate.error)}</Notice> : null}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={close}>
              Cancel
            </button>
            <button type="submit" className="button button-primary" disabled={rotate.isPending}>
              Rotate key
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

export function RevokeKeyDialog({ apiKey, onClose }: { apiKey: ApiKey | undefined; onClose: () => void }) {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: (key: ApiKey) =>
      unwrap(api.DELETE("/api/workspace/api-keys/{key_id}", { params: { path: { key_id: key.id }, header: csrf } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys });
      close();
    },
  });
  function close() {
    revoke.reset();
    onClose();
  }
  return (
    <Dialog open={apiKey !== undefined} title={`Revoke “${apiKey?.name ?? ""}”?`} onClose={close}>
      <p>
        Requests with this key (<span className="mono">{apiKey?.prefix}…</span>) will fail with 401 at once. This cannot
        be undone.
      </p>
      <ConfirmActions
        label="Revoke key"
        tone="danger"
        error={revoke.error}
        pending={revoke.isPending}
        onCancel={close}
        onConfirm={() => apiKey && revoke.mutate(apiKey)}
      />
    </Dialog>
  );
}
