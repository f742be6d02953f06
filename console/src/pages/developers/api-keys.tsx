/** Workspace settings → Developers → API keys: the list, and Add new key, Rotate and Revoke. */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { type ApiKey, apiKeysQuery } from "../../api/queries.ts";
import { AppLayout } from "../../components/app-layout.tsx";
import { EmptyState, ErrorState, Loading } from "../../components/states.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { RevokeKeyDialog, RotateKeyDialog } from "./api-key-change.tsx";
import { CreateKeyDialog } from "./api-key-create.tsx";

function keyState(key: ApiKey): "active" | "revoked" | "expired" {
  if (key.revoked_at) return "revoked";
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return "expired";
  return "active";
}

type Open = { kind: "create" } | { kind: "rotate" | "revoke"; key: ApiKey } | undefined;

export function ApiKeysPage() {
  const keys = useQuery(apiKeysQuery);
  const [open, setOpen] = useState<Open>(undefined);
  const close = () => setOpen(undefined);

  return (
    <AppLayout
      title="API keys"
      actions={
        <button type="button" className="button button-primary" onClick={() => setOpen({ kind: "create" })}>
          Add new key
        </button>
      }
    >
      <p className="lead">
        A key authenticates requests to <code>/v1</code> as <code>Authorization: Bearer sk_live_…</code>. Its value is
        shown once, when it is made; here you see its first characters only.
      </p>
      {keys.isPending ? <Loading label="Loading API keys…" /> : null}
      {keys.error ? <ErrorState error={keys.error} onRetry={() => void keys.refetch()} /> : null}
      {keys.data && keys.data.data.length === 0 ? (
        <EmptyState title="No API keys yet">
          <p>Add a key for each client that calls the API, with the scopes it needs.</p>
        </EmptyState>
      ) : null}
      {keys.data && keys.data.data.length > 0 ? (
        <table className="table">
          <caption className="visually-hidden">API keys of this workspace, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Revoked</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.data.map((key) => {
              const state = keyState(key);
              return (
                <tr key={key.id} className={state === "active" ? undefined : "row-inactive"}>
                  <th scope="row" data-label="Name">
                    {key.name}
                    {state === "expired" ? <span className="badge">Expired</span> : null}
                    {state === "revoked" ? <span className="badge badge-danger">Revoked</span> : null}
                  </th>
                  <td data-label="Key" className="mono">
                    {key.prefix}…
                  </td>
                  <td data-label="Scopes">
                    <ul className="tags">
                      {key.scopes.map((scope) => (
                        <li key={scope} className="tag mono">
                          {scope}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td data-label="Created">{formatDateTime(key.created_at)}</td>
                  <td data-label="Last used">{formatDateTime(key.last_used_at, "Never")}</td>
                  <td data-label="Expires">{formatDateTime(key.expires_at, "Never")}</td>
                  <td data-label="Revoked">{formatDateTime(key.revoked_at, "—")}</td>
                  <td>
                    <div className="row-actions">
                      {state === "revoked" ? null : (
                        <>
                          <button type="button" className="button" onClick={() => setOpen({ kind: "rotate", key })}>
                            Rotate
                          </button>
                          <button
                            type="button"
                            className="button button-danger"
                            onClick={() => setOpen({ kind: "revoke", key })}
                          >
                            Revoke
                          </button>
                        </>
                      )}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {keys.data?.has_more ? <p className="muted">Showing the newest {keys.data.data.length} keys.</p> : null}
      <CreateKeyDialog open={open?.kind === "create"} onClose={close} />
      <RotateKeyDialog apiKey={open?.kind === "rotate" ? open.key : undefined} onClose={close} />
      <RevokeKeyDialog apiKey={open?.kind === "revoke" ? open.key : undefined} onClose={close} />
    </AppLayout>
  );
}
