/** Developers: where API keys and webhooks live, and the first request to try. */
import { Link } from "wouter";
import { AppLayout } from "../../components/app-layout.tsx";
import { paths } from "../../routes.ts";

export function DevelopersPage() {
  const origin = window.location.origin;
  return (
    <AppLayout title="Developers">
      <div className="cards">
        <section className="card" aria-labelledby="dev-keys">
          <h2 id="dev-keys">API keys</h2>
          <p>
            Keys authenticate requests to the REST API. Give each client its own key, with the fewest scopes it needs.
          </p>
          <Link href={paths.apiKeys} className="button">
            Manage API keys
          </Link>
        </section>
        <section className="card" aria-labelledby="dev-webhooks">
          <h2 id="dev-webhooks">Webhooks</h2>
          <p>Endpoints receive signed events (a lead captured, a ticket updated) as they happen.</p>
          <Link href={paths.webhooks} className="button">
            Manage webhooks
          </Link>
        </section>
      </div>
      <section className="card" aria-labelledby="dev-first">
        <h2 id="dev-first">Your first request</h2>
        <p>
          With a key that has the <code>leads:read</code> scope:
        </p>
        <pre className="code">{`curl ${origin}/v1/leads \\\n  -H "Authorization: Bearer $API_KEY"`}</pre>
        <p>
          The reference of every operation is at{" "}
          <a href="/docs" className="external">
            /docs
          </a>
          .
        </p>
      </section>
    </AppLayout>
  );
}
