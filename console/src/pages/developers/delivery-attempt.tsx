/**
 * One attempt of a delivery: the request as sent (its headers, the signatures among them, and the exact body) beside
 * the response. The body is shown as sent, not reformatted: a signature is over these bytes, so a receiver debugging
 * a refused signature compares against exactly this.
 */
import type { DeliveryAttempt } from "../../api/queries.ts";
import { Notice } from "../../components/states.tsx";
import { formatDateTime } from "../../lib/format.ts";

function RequestHeaders({ attempt }: { attempt: DeliveryAttempt }) {
  if (!attempt.request_headers) {
    return <p className="muted">Not kept: this attempt was made before the service kept the headers it sent.</p>;
  }
  return (
    <table className="table headers-table">
      <caption className="visually-hidden">Request headers of attempt {attempt.attempt}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(attempt.request_headers).map(([name, value]) => (
          <tr key={name}>
            <th scope="row" className="mono">
              {name}
            </th>
            <td className="mono break">{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AttemptCard({ attempt, payload }: { attempt: DeliveryAttempt; payload: string }) {
  const id = `attempt-${attempt.attempt}`;
  return (
    <li className="card attempt">
      <h3>
        Attempt {attempt.attempt}:{" "}
        <span className="mono">{attempt.response_status === null ? "no response" : attempt.response_status}</span>
      </h3>
      <p className="muted">
        {formatDateTime(attempt.started_at)} · {attempt.duration_ms} ms
      </p>
      {attempt.error ? <Notice tone="warning">{attempt.error}</Notice> : null}
      <div className="exchange">
        <section aria-labelledby={`${id}-request`}>
          <h4 id={`${id}-request`}>Request</h4>
          <p className="field-label">Headers</p>
          <RequestHeaders attempt={attempt} />
          <p className="field-label">Body, exactly as sent</p>
          <pre className="code">{payload}</pre>
        </section>
        <section aria-labelledby={`${id}-response`}>
          <h4 id={`${id}-response`}>Response</h4>
          <p className="field-label">Response body (first 4 KiB)</p>
          <pre className="code">{attempt.response_body || "(empty)"}</pre>
        </section>
      </div>
    </li>
  );
}
