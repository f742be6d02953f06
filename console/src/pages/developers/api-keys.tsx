/**
 * Workspace settings → Developers → API keys: the list, and Add new key, Rotate and Revoke.
 *
 * The table holds a name with its key's prefix, scopes, three dates and two buttons in the page's width at 1280 px
 * (976 px beside the navigation): names (11rem at least) and dates keep one line each and the scopes wrap instead. To
 * fit, Created is a day (the list is newest first), other dates carry their time only within a week (a rotation's
 * overlap), the year only when it is not this one, and a revoked key's date takes the Expires column, where it ended
 * the key. Where even that does not fit, the table scrolls in its own region rather than the page; under 760 px its
 * rows are cards.
 */
import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { type ApiKey, apiKeysQuery } from "../../api/queries.ts";
import { AppLayout } from "../../components/app-layout.tsx";
import { EmptyState, ErrorState, Loading } from "../../components/states.tsx";
import { formatShortDate } from "../../lib/format.ts";
import { useMode } from "../../session/mode.ts";
import { RevokeKeyDialog, RotateKeyDialog } from "./api-key-change.tsx";
import { CreateKeyDialog } from "./api-key-create.tsx";

function keyState(key: ApiKey): "active" | "revoked" | "expired" {
  if (key.revoked_at) return "revoked";
  if (key.expires_at && Date.parse(key.expires_at) <= Date.now()) return "expired";
  return "active";
}

type Open = { kind: "create" } | { kind: "rotate" | "revoke"; key: ApiKey } | undefined;

/** A date of one line, with the exact instant for machines. */
function When({
  value,
  time = "near",
  whenNull,
}: {
  value: string | null | undefined;
  time?: "never" | "near";
  whenNull: string;
}) {
  if (!value) return whenNull;
  return (
    <time dateTime={value} className="nowrap">
      {formatShortDate(value, { time })}
    </time>
  );
}

export function ApiKeysPage() {
  const keys = useQuery(apiKeysQuery);
  const mode = useMode();
  const [open, setOpen] = useState<Open>(undefined);
  const close = () => setOpen(undefined);
  const captionId = useId();

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
        A key authenticates requests to <code>/v1</code> as{" "}
        <code>Authorization: Bearer {mode === "test" ? "sk_test_…" : "sk_live_…"}</code>.{" "}
        {mode === "test"
          ? "These are test mode's keys: they reach the workspace's test data only, never live data."
          : "These are live mode's keys; test mode (the switch above) has keys of its own."}{" "}
        A key's value is shown once, when it is made; here you see its first characters only.
      </p>
      {keys.isPending ? <Loading label="Loading API keys…" /> : null}
      {keys.error ? <ErrorState error={keys.error} onRetry={() => void keys.refetch()} /> : null}
      {keys.data && keys.data.data.length === 0 ? (
        <EmptyState title="No API keys yet">
          <p>Add a key for each client that calls the API, with the scopes it needs.</p>
        </EmptyState>
      ) : null}
      {keys.data && keys.data.data.length > 0 ? (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must take focus for the keyboard to scroll it (WCAG 2.1.1; axe's scrollable-region-focusable).
        <section className="table-scroll" aria-labelledby={captionId} tabIndex={0}>
          <table className="table keys-table">
            <caption id={captionId} className="visually-hidden">
              API keys of this workspace, newest first
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
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
                      <span className="key-prefix mono">{key.prefix}…</span>
                    </th>
                    <td data-label="Scopes">
                      <ul className="tags">
                        {key.scopes.map((scope) => (
                          <li key={scope} className="tag mono">
                            {scope}
                          </li>
                        ))}
                      </ul>
                    </td>
                    <td data-label="Created">
                      <When value={key.created_at} time="never" whenNull="—" />
                    </td>
                    <td data-label="Last used">
                      <When value={key.last_used_at} whenNull="Never" />
                    </td>
                    <td data-label="Expires">
                      {key.revoked_at ? (
                        <span>
                          <span className="nowrap">Revoked</span> <When value={key.revoked_at} whenNull="—" />
                        </span>
                      ) : (
                        <When value={key.expires_at} whenNull="Never" />
                      )}
                    </td>
                    <td>
                      {state === "revoked" ? null : (
                        <div className="row-actions">
                          <button
                            type="button"
                            className="button button-small"
                            onClick={() => setOpen({ kind: "rotate", key })}
                          >
                            Rotate
                          </button>
                          <button
                            type="button"
                            className="button button-small button-danger"
                            onClick={() => setOpen({ kind: "revoke", key })}
                          >
                            Revoke
                          </button>
                        </div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      ) : null}
      {keys.data?.has_more ? <p className="muted">Showing the newest {keys.data.data.length} keys.</p> : null}
      <CreateKeyDialog open={open?.kind === "create"} onClose={close} />
      <RotateKeyDialog apiKey={open?.kind === "rotate" ? open.key : undefined} onClose={close} />
      <RevokeKeyDialog apiKey={open?.kind === "revoke" ? open.key : undefined} onClose={close} />
    </AppLayout>
  );
}
