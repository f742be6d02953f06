/** After sign-up: the same words whether or not the address could register. */
import { Link, useSearch } from "wouter";
import { AuthLayout } from "../../components/auth-layout.tsx";
import { paths } from "../../routes.ts";

export function CheckInboxPage() {
  const email = new URLSearchParams(useSearch()).get("email");
  return (
    <AuthLayout title="Check your inbox">
      <p>
        If {email ? <strong>{email}</strong> : "this address"} can open an account, we have sent it a link to confirm
        the address. The link works once, for 24 hours.
      </p>
      <p>Open it in this browser to finish signing up.</p>
      <details className="hint">
        <summary>Running the service on your own machine?</summary>
        <p>
          Without <code>SMTP_URL</code>, e-mails are not sent: the link is in the server's terminal (the line{" "}
          <code>e-mail written to the outbox</code>), or run:
        </p>
        <pre className="code">npm run --silent admin -- outbox:list</pre>
      </details>
      <p className="auth-links">
        No e-mail after a few minutes? <Link href={paths.resendVerification}>Resend verification</Link> ·{" "}
        <Link href={paths.signIn}>Sign in</Link>
      </p>
    </AuthLayout>
  );
}
