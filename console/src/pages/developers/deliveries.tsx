/** An endpoint's deliveries, newest first, refreshed while one is still pending. */
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { type Delivery, deliveriesQuery } from "../../api/queries.ts";
import { EmptyState, ErrorState, Loading } from "../../components/states.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { deliveryPath } from "../../routes.ts";

const PENDING_REFRESH_MS = 2_000;
const IDLE_REFRESH_MS = 15_000;

export function DeliveryStatus({ delivery }: { delivery: Delivery }) {
  const tone = { pending: "badge-warning", succeeded: "badge-success", failed: "badge-danger" }[delivery.status];
  return <span className={`badge ${tone}`}>{delivery.status}</span>;
}

function lastResponse(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  if (!last) return "—";
  return last.response_status === null ? (last.error ?? "no response") : String(last.response_status);
}

export function DeliveriesTable({ webhookId }: { webhookId: string }) {
  const deliveries = useQuery({
    ...deliveriesQuery(webhookId),
    refetchInterval: (query) =>
      query.state.data?.data.some((delivery) => delivery.status === "pending") ? PENDING_REFRESH_MS : IDLE_REFRESH_MS,
  });
  return (
    <section aria-labelledby="deliveries" className="section">
      <h2 id="deliveries">Deliveries</h2>
      {deliveries.isPending ? <Loading label="Loading deliveries…" /> : null}
      {deliveries.error ? <ErrorState error={deliveries.error} onRetry={() => void deliveries.refetch()} /> : null}
      {deliveries.data && deliveries.data.data.length === 0 ? (
        <EmptyState title="No deliveries yet">
          <p>Send a test event, or create a lead through the API, to see one here.</p>
        </EmptyState>
      ) : null}
      {deliveries.data && deliveries.data.data.length > 0 ? (
        <table className="table">
          <caption className="visually-hidden">Deliveries to this endpoint, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last response</th>
              <th scope="col">Time</th>
              <th scope="col">
                <span className="visually-hidden">Details</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.data.map((delivery) => (
              <tr key={delivery.id}>
                <th scope="row" data-label="Event">
                  <span className="mono">{delivery.event_type}</span>
                  <span className="muted block mono small">{delivery.event_id}</span>
                </th>
                <td data-label="Status">
                  <DeliveryStatus delivery={delivery} />
                </td>
                <td data-label="Attempts">{delivery.attempt_count}</td>
                <td data-label="Last response" className="mono">
                  {lastResponse(delivery)}
                </td>
                <td data-label="Time">{formatDateTime(delivery.created_at)}</td>
                <td>
                  <div className="row-actions">
                    <Link href={deliveryPath(webhookId, delivery.id)} className="button">
                      View attempts
                    </Link>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
