/**
 * Workspace settings → Developers → Events: the newest events of the mode the console is in (what `/v1/events` lists
 * to a key of that mode), with the object each one is about: how a builder sees what their tests and triggers did.
 */
import { useQuery } from "@tanstack/react-query";
import { eventsQuery } from "../../api/queries.ts";
import { AppLayout } from "../../components/app-layout.tsx";
import { EmptyState, ErrorState, Loading } from "../../components/states.tsx";
import { formatDateTime } from "../../lib/format.ts";
import { useMode } from "../../session/mode.ts";

export function EventsPage() {
  const events = useQuery(eventsQuery);
  const mode = useMode();
  return (
    <AppLayout title="Events">
      <p className="lead">
        Every change of {mode === "test" ? "test mode's" : "the workspace's live"} leads, conversations, messages and
        tickets, newest first: what <code>GET /v1/events</code> lists and webhooks deliver. Kept 30 days.
      </p>
      {events.data?.restarted_at ? (
        <p className="muted">
          The test data was reset on {formatDateTime(events.data.restarted_at)}: the feed began again at 1.
        </p>
      ) : null}
      {events.isPending ? <Loading label="Loading events…" /> : null}
      {events.error ? <ErrorState error={events.error} onRetry={() => void events.refetch()} /> : null}
      {events.data && events.data.data.length === 0 ? (
        <EmptyState title="No events yet">
          <p>
            {mode === "test"
              ? "Make one with a test key: npx @service/sdk trigger lead.captured."
              : "Events appear as leads, conversations and tickets change."}
          </p>
        </EmptyState>
      ) : null}
      {events.data && events.data.data.length > 0 ? (
        <table className="table">
          <caption className="visually-hidden">Events of this workspace, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Sequence</th>
              <th scope="col">Object</th>
              <th scope="col">When</th>
            </tr>
          </thead>
          <tbody>
            {events.data.data.map((event) => (
              <tr key={event.id}>
                <th scope="row" data-label="Event">
                  <span className="mono">{event.type}</span>
                  <span className="muted block mono">{event.id}</span>
                </th>
                <td data-label="Sequence">{event.sequence}</td>
                <td data-label="Object" className="mono break">
                  {event.data.object.id}
                </td>
                <td data-label="When">{formatDateTime(event.timestamp)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {events.data?.has_more ? <p className="muted">Showing the newest {events.data.data.length}.</p> : null}
    </AppLayout>
  );
}
