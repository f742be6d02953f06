/**
 * The verification link's page: posts the token once and continues, signed in when a session exists, otherwise
 * to Sign in, with the address this browser last asked a link for in the history state (not the URL): its e-mail field
 * starts with it.
 * A token is single-use, so a re-render never posts it twice.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { api } from "../../api/client.ts";
import { ApiError, describeError, unwrap } from "../../api/errors.ts";
import { AuthLayout } from "../../components/auth-layout.tsx";
import { Loading, Notice } from "../../components/states.tsx";
import { takeHashToken } from "../../lib/hash-token.ts";
import { takeVerificationEmail } from "../../lib/verification-email.ts";
import { paths } from "../../routes.ts";
import { sessionQuery } from "../../session/session.ts";

export function VerifyEmailPage() {
  const [token] = useState(takeHashToken);
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const verify = useMutation({
    mutationFn: (value: string) => unwrap(api.POST("/api/auth/verify", { body: { token: value } })),
    onSuccess: async () => {
      const signedIn = await queryClient.fetchQuery(sessionQuery).then(
        () => true,
        () => false,
      );
      const email = takeVerificationEmail();
      if (signedIn) navigate(paths.developers, { replace: true });
      else navigate(`${paths.signIn}?notice=verified`, { replace: true, state: email ? { email } : null });
    },
  });
  const { mutate } = verify;
  const posted = useRef(false);
  useEffect(() => {
    if (!token || posted.current) return;
    posted.current = true;
    mutate(token);
  }, [token, mutate]);

  if (!token) {
    return (
      <AuthLayout title="Confirm your e-mail address">
        <Notice tone="error">This page needs the link from the verification e-mail, with its token.</Notice>
        <p className="auth-links">
          <Link href={paths.resendVerification}>Resend verification</Link> · <Link href={paths.signIn}>Sign in</Link>
        </p>
      </AuthLayout>
    );
  }
  const invalid = verify.error instanceof ApiError && verify.error.code === "TOKEN_INVALID";
  return (
    <AuthLayout title="Confirm your e-mail address">
      {verify.isError ? (
        <>
          <Notice tone="error">
            {invalid
              ? "This link has expired or was already used. If you confirmed already, sign in; otherwise ask for a new link."
              : describeError(verify.error)}
          </Notice>
          <p className="auth-links">
            <Link href={paths.signIn}>Sign in</Link> · <Link href={paths.resendVerification}>Resend verification</Link>
          </p>
        </>
      ) : (
        <Loading label="Confirming your address…" />
      )}
    </AuthLayout>
  );
}
