/**
 * Sign in, then back to the page that asked for it (`?next=`), or to the developer settings. After a verification
 * link, the e-mail field starts with the address the history state carries (see verify-email.tsx).
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { useHistoryState } from "wouter/use-browser-location";
import { api } from "../../api/client.ts";
import { ApiError, describeError, unwrap } from "../../api/errors.ts";
import { AuthLayout } from "../../components/auth-layout.tsx";
import { EmailField, Field } from "../../components/field.tsx";
import { Notice } from "../../components/states.tsx";
import { paths, safeNext } from "../../routes.ts";
import { sessionQuery } from "../../session/session.ts";

const NOTICES: Record<string, string> = {
  verified: "Your address is confirmed. Sign in to continue.",
  reset: "Your password is changed, and every session was signed out. Sign in with the new password.",
  "signed-out": "You are signed out.",
  expired: "Your session ended. Sign in again to continue where you were.",
};

function failure(error: unknown): string {
  if (error instanceof ApiError && error.code === "INVALID_CREDENTIALS") {
    return "The e-mail or password is wrong, or the address is not confirmed yet. If you signed up recently, we have sent you a new link.";
  }
  return describeError(error);
}

export function SignInPage() {
  const params = new URLSearchParams(useSearch());
  const notice = NOTICES[params.get("notice") ?? ""];
  const next = safeNext(params.get("next"));
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const carried = useHistoryState<{ email?: unknown } | null>()?.email;
  const [email, setEmail] = useState(typeof carried === "string" ? carried : "");
  const [password, setPassword] = useState("");

  const signIn = useMutation({
    mutationFn: () => unwrap(api.POST("/api/auth/login", { body: { email, password } })),
    onSuccess: (session) => {
      queryClient.clear();
      queryClient.setQueryData(sessionQuery.queryKey, session);
      navigate(next, { replace: true });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    signIn.mutate();
  }

  return (
    <AuthLayout title="Sign in">
      {notice ? <Notice tone="info">{notice}</Notice> : null}
      <form onSubmit={submit}>
        <EmailField value={email} onChange={setEmail} />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <p className="field-aside">
          <Link href={paths.forgotPassword}>Forgot password?</Link>
        </p>
        {signIn.error ? <Notice tone="error">{failure(signIn.error)}</Notice> : null}
        <button type="submit" className="button button-primary button-wide" disabled={signIn.isPending}>
          {signIn.isPending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p className="auth-links">
        New here? <Link href={paths.signUp}>Sign up</Link> ·{" "}
        <Link href={paths.resendVerification}>Resend verification</Link>
      </p>
    </AuthLayout>
  );
}
