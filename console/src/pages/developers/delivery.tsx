/** One delivery: its attempts, each with the request as sent and the response kept, and Redeliver. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "wouter";
import { api } from "../../api/client.ts";
import { describeError, unwrap } from "../../api/errors.ts";
import { deliveryQuery, queryKeys } from "../../api/queries.ts";
import { AppLayout } from "../../components/app-layout.tsx";
import { EmptyState, ErrorState, Loading, Notice } from "../../components/states.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { deliveryPath, webhookPath } from "../../routes.ts";
import { useCsrfHeader } from "../../session/session.ts";
import { DeliveryStatus } from "./deliveries.tsx";
import { AttemptCard } from "./delivery-attempt.tsx";

function Redeliver({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }) {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const redeliver = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/workspace/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver", {
          params: { path: { webhook_id: webhookId, delivery_id: deliveryId }, header: csrf },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.deliveries(webhookId) }),
  });
  return (
    <div>
      <button
        type="button"
        className="button button-primary"
        disabled={redeliver.isPending}
        onClick={() => redeliver.mutate()}
      >
        Redeliver
      </button>
      {redeliver.data ? (
        <Notice tone="success">
          Sent again as a new delivery with the same <code>webhook-id</code>:{" "}
          <Link href={deliveryPath(webhookId, redeliver.data.id)}>see its attempts</Link>.
        </Notice>
      ) : null}
      {redeliver.error ? <Notice tone="error">{describeError(redeliver.error)}</Notice> : null}
    </div>
  );
}

export function DeliveryPage() {
  const { webhookId = "", deliveryId = "" } = useParams<{ webhookId: string; deliveryId: string }>();
  const delivery = useQuery({
    ...deliveryQuery(webhookId, deliveryId),
    refetchInterval: (query) => (query.state.data?.status === "pending" ? 2_000 : false),
  });
  const breadcrumb = <Link href={webhookPath(webhookId)}>← Webhook endpoint</Link>;
  const data = delivery.data;
  return (
    <AppLayout title="Delivery" breadcrumb={breadcrumb}>
      {delivery.isPending ? <Loading label="Loading the delivery…" /> : null}
      {delivery.error ? <ErrorState error={delivery.error} onRetry={() => void delivery.refetch()} /> : null}
      {data ? (
        <>
          <section className="card" aria-label="Delivery">
            <dl className="details">
              <dt>Event</dt>
              <dd className="mono">{data.event_type}</dd>
              <dt>Event id</dt>
              <dd className="mono break">{data.event_id}</dd>
              <dt>Status</dt>
              <dd>
                <DeliveryStatus delivery={data} />
              </dd>
              <dt>Attempts</dt>
              <dd>{data.attempt_count}</dd>
              <dt>Next attempt</dt>
              <dd>{formatDateTime(data.next_attempt_at, "None")}</dd>
              <dt>Created</dt>
              <dd>{formatDateTime(data.created_at)}</dd>
            </dl>
            <Redeliver webhookId={webhookId} deliveryId={deliveryId} />
          </section>
          <section aria-labelledby="attempts" className="section">
            <h2 id="attempts">Attempts</h2>
            {data.attempts.length === 0 ? <EmptyState title="No attempt yet: the first one is on its way." /> : null}
            <ol className="attempts">
              {data.attempts.map((attempt) => (
                <AttemptCard key={attempt.attempt} attempt={attempt} payload={data.payload} />
              ))}
            </ol>
          </section>
        </>
      ) : null}
    </AppLayout>
  );
}
