/** Delete endpoint, after a confirmation; then back to the list, which no longer has it. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useLocation } from "wouter";
import { api } from "../../api/client.ts";
import { unwrap } from "../../api/errors.ts";
import { queryKeys, type Webhook, webhooksQuery } from "../../api/queries.ts";
import { ConfirmActions, Dialog } from "../../components/dialog.tsx";
import { paths } from "../../routes.ts";
import { useCsrfHeader } from "../../session/session.ts";

export function DeleteEndpoint({ webhook }: { webhook: Webhook }) {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const [open, setOpen] = useState(false);
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE("/api/workspace/webhooks/{webhook_id}", {
          params: { path: { webhook_id: webhook.id }, header: csrf },
        }),
      ),
    onSuccess: async () => {
      // The list first, so that it never shows the endpoint again: the cached page (which the list shows at once when
      // it opens) loses it now, and is fetched again. The endpoint's own queries are dropped after the page has left,
      // not refetched into a 404 while it is still open.
      queryClient.setQueryData(webhooksQuery.queryKey, (list) =>
        list ? { ...list, data: list.data.filter((item) => item.id !== webhook.id) } : list,
      );
      await queryClient.invalidateQueries({ queryKey: queryKeys.webhooks, exact: true, refetchType: "all" });
      navigate(paths.webhooks);
      queryClient.removeQueries({ queryKey: queryKeys.webhook(webhook.id) });
    },
  });
  const close = () => {
    setOpen(false);
    remove.reset();
  };
  return (
    <>
      <button type="button" className="button button-danger" onClick={() => setOpen(true)}>
        Delete endpoint
      </button>
      <Dialog open={open} title="Delete this endpoint?" onClose={close}>
        <p>
          <span className="mono break">{webhook.url}</span> will get no more events, and its pending deliveries are
          dropped. Its signing secret and delivery history go with it. This cannot be undone.
        </p>
        <ConfirmActions
          label="Delete endpoint"
          tone="danger"
          error={remove.error}
          pending={remove.isPending}
          onCancel={close}
          onConfirm={() => remove.mutate()}
        />
      </Dialog>
    </>
  );
}
