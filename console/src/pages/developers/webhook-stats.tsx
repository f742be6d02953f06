/**
 * An endpoint's health over the last 24 hours (`GET …/stats`): its page shows all of it, the endpoints list its
 * success rate. Both read one query per endpoint, so that the list and the page share what they fetched.
 */
import { useQuery } from "@tanstack/react-query";
import { webhookStatsQuery } from "../../api/queries.ts";
import { ErrorState, Loading } from "../../components/states.tsx";
import { formatDateTime, formatMilliseconds, formatPercent } from "../../lib/format.ts";

/** While a delivery is pending its outcome is minutes away at most; otherwise the figures move slowly. */
const PENDING_REFRESH_MS = 2_000;
const IDLE_REFRESH_MS = 15_000;

function useStats(webhookId: string) {
  return useQuery({
    ...webhookStatsQuery(webhookId),
    refetchInterval: (query) =>
      (query.state.data?.deliveries.pending ?? 0) > 0 ? PENDING_REFRESH_MS : IDLE_REFRESH_MS,
  });
}

/** The endpoints list's cell: the share of settled deliveries that succeeded, "—" when none has settled. */
export function SuccessRate({ webhookId }: { webhookId: string }) {
  const stats = useStats(webhookId);
  if (stats.error) return <span className="muted">Unavailable</span>;
  if (!stats.data) return <span className="muted">…</span>;
  return <>{formatPercent(stats.data.success_rate)}</>;
}

export function WebhookHealth({ webhookId }: { webhookId: string }) {
  const stats = useStats(webhookId);
  const data = stats.data;
  const figures = data
    ? [
        { term: "Success rate", value: formatPercent(data.success_rate) },
        { term: "Succeeded", value: data.deliveries.succeeded.toLocaleString() },
        { term: "Failed", value: data.deliveries.failed.toLocaleString() },
        { term: "Pending", value: data.deliveries.pending.toLocaleString() },
        { term: "Attempts", value: data.attempts.toLocaleString() },
        { term: "Response p50", value: formatMilliseconds(data.response_time_ms.p50) },
        { term: "Response p99", value: formatMilliseconds(data.response_time_ms.p99) },
      ]
    : [];
  return (
    <section className="card" aria-labelledby="endpoint-health">
      <h2 id="endpoint-health">Health, last 24 hours</h2>
      {stats.isPending ? <Loading label="Loading the endpoint's health…" /> : null}
      {stats.error ? <ErrorState error={stats.error} onRetry={() => void stats.refetch()} /> : null}
      {data ? (
        <>
          <dl className="stats">
            {figures.map((figure) => (
              <div key={figure.term} className="stat">
                <dt>{figure.term}</dt>
                <dd>{figure.value}</dd>
              </div>
            ))}
          </dl>
          <p className="muted small">
            Deliveries made since <time dateTime={data.since}>{formatDateTime(data.since)}</time>. The success rate
            counts the settled ones: succeeded over succeeded and failed. Half of the receiver's answers came within the
            p50 response time, 99 in 100 within the p99.
          </p>
        </>
      ) : null}
    </section>
  );
}
