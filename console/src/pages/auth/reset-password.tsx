/** The reset link's page: a new password for the token in the fragment; then Sign in. */
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useLocation } from "wouter";
import { api } from "../../api/client.ts";
import { ApiError, describeError, unwrap } from "../../api/errors.ts";
import { AuthLayout } from "../../components/auth-layout.tsx";
import { Field } from "../../components/field.tsx";
import { Notice } from "../../components/states.tsx";
import { takeHashToken } from "../../lib/hash-token.ts";
import { paths } from "../../routes.ts";

export function ResetPasswordPage() {
  const [token] = useState(takeHashToken);
  const [password, setPassword] = useState("");
  const [, navigate] = useLocation();
  const reset = useMutation({
    mutationFn: (value: string) => unwrap(api.POST("/api/auth/reset", { body: { token: value, password } })),
    onSuccess: () => navigate(`${paths.signIn}?notice=reset`, { replace: true }),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (token) reset.mutate(token);
  }

  if (!token) {
    return (
      <AuthLayout title="Choose a new password">
        <Notice tone="error">This page needs the link from the password-reset e-mail, with its token.</Notice>
        <p className="auth-links">
          <Link href={paths.forgotPassword}>Forgot password?</Link>
        </p>
      </AuthLayout>
    );
  }
  const invalid = reset.error instanceof ApiError && reset.error.code === "TOKEN_INVALID";
  return (
    <AuthLayout title="Choose a new password">
      <form onSubmit={submit}>
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          maxLength={256}
          hint="At least 10 characters. Every session of the account is signed out."
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        {reset.error ? (
          <Notice tone="error">
            {invalid ? (
              <>
                This link has expired or was already used. <Link href={paths.forgotPassword}>Ask for a new one</Link>.
              </>
            ) : (
              describeError(reset.error)
            )}
          </Notice>
        ) : null}
        <button type="submit" className="button button-primary button-wide" disabled={reset.isPending}>
          Set new password
        </button>
      </form>
    </AuthLayout>
  );
}
