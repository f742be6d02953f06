/**
 * "Forgot password?" and "Resend verification": one field, then the same answer whether or not the account exists
 * and whether or not its e-mail budget is spent (`throttled`), as the contract promises. Only the per-IP 429 differs.
 */
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useState } from "react";
import { Link } from "wouter";
import { api } from "../../api/client.ts";
import { describeError, unwrap } from "../../api/errors.ts";
import { AuthLayout } from "../../components/auth-layout.tsx";
import { EmailField } from "../../components/field.tsx";
import { Notice } from "../../components/states.tsx";
import { rememberVerificationEmail } from "../../lib/verification-email.ts";
import { paths } from "../../routes.ts";

function EmailRequestPage({
  title,
  intro,
  submitLabel,
  send,
  done,
}: {
  title: string;
  intro: string;
  submitLabel: string;
  send: (email: string) => Promise<unknown>;
  done: (email: string) => ReactNode;
}) {
  const [email, setEmail] = useState("");
  const request = useMutation({ mutationFn: () => send(email) });
  function submit(event: FormEvent) {
    event.preventDefault();
    request.mutate();
  }
  return (
    <AuthLayout title={title}>
      {request.isSuccess ? (
        <Notice tone="success">{done(email.trim())}</Notice>
      ) : (
        <form onSubmit={submit}>
          <p>{intro}</p>
          <EmailField value={email} onChange={setEmail} />
          {request.error ? <Notice tone="error">{describeError(request.error)}</Notice> : null}
          <button type="submit" className="button button-primary button-wide" disabled={request.isPending}>
            {submitLabel}
          </button>
        </form>
      )}
      <p className="auth-links">
        <Link href={paths.signIn}>Sign in</Link> · <Link href={paths.signUp}>Sign up</Link>
      </p>
    </AuthLayout>
  );
}

export function ForgotPasswordPage() {
  return (
    <EmailRequestPage
      title="Reset your password"
      intro="Enter the address of your account: we will send it a link to choose a new password."
      submitLabel="Send reset link"
      send={(email) => unwrap(api.POST("/api/auth/forgot", { body: { email } }))}
      done={(email) => (
        <>
          If <strong>{email}</strong> has an account, a link to reset its password is on its way. It works once, for 1
          hour.
        </>
      )}
    />
  );
}

export function ResendVerificationPage() {
  return (
    <EmailRequestPage
      title="Resend verification"
      intro="Enter the address you signed up with: we will send it a new confirmation link."
      submitLabel="Resend verification e-mail"
      send={async (email) => {
        const answer = await unwrap(api.POST("/api/auth/resend-verification", { body: { email } }));
        rememberVerificationEmail(email.trim());
        return answer;
      }}
      done={(email) => (
        <>
          If <strong>{email}</strong> is waiting for confirmation, a new link is on its way. Links can be sent once a
          minute.
        </>
      )}
    />
  );
}
