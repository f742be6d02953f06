/**
 * Sign up. Whatever the service answers to a well-formed request, the next screen is the same "check your inbox"
 * (the contract's anti-enumeration holds in the UI too); only a wait (429) or a refused address stays here.
 */
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useLocation } from "wouter";
import { api } from "../../api/client.ts";
import { ApiError, describeError, unwrap } from "../../api/errors.ts";
import { AuthLayout } from "../../components/auth-layout.tsx";
import { EmailField, Field } from "../../components/field.tsx";
import { Loading, Notice } from "../../components/states.tsx";
import { rememberVerificationEmail } from "../../lib/verification-email.ts";
import { paths } from "../../routes.ts";

function refusal(error: unknown): string {
  if (error instanceof ApiError && error.code === "DISPOSABLE_EMAIL") {
    return "This address belongs to a disposable e-mail provider. Use an address you will keep: it is where your account's e-mails go.";
  }
  if (error instanceof ApiError && (error.code === "INVITE_REQUIRED" || error.code === "INVITE_INVALID")) {
    return error.code === "INVITE_REQUIRED"
      ? "Registration is by invitation: enter your invite code."
      : "This invite code is unknown, used or expired, or it was issued for another address.";
  }
  return describeError(error);
}

export function SignUpPage() {
  const [, navigate] = useLocation();
  const settings = useQuery({
    queryKey: ["registration"],
    queryFn: () => unwrap(api.GET("/api/auth/registration")),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [name, setName] = useState("");
  const [inviteCode, setInviteCode] = useState("");
  const invite = settings.data?.mode === "invite";

  const register = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/auth/register", {
          body: {
            email,
            password,
            ...(name.trim() ? { name: name.trim() } : {}),
            ...(invite ? { invite_code: inviteCode.trim() } : {}),
          },
        }),
      ),
    onSuccess: () => {
      rememberVerificationEmail(email.trim());
      navigate(`${paths.checkInbox}?email=${encodeURIComponent(email.trim())}`);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    register.mutate();
  }

  return (
    <AuthLayout title="Create your account">
      <p className="lead">Get an API key and a webhook endpoint in a few minutes.</p>
      {settings.isPending ? <Loading /> : null}
      <form onSubmit={submit} noValidate={false}>
        <EmailField value={email} onChange={setEmail} />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          maxLength={256}
          hint="At least 10 characters. A few unrelated words make a strong one."
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <Field
          label="Name"
          autoComplete="name"
          maxLength={200}
          hint="Optional: how we greet you."
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        {invite ? (
          <Field
            label="Invite code"
            required
            autoComplete="off"
            hint="Registration is by invitation: the code is in your invitation e-mail."
            value={inviteCode}
            onChange={(event) => setInviteCode(event.target.value)}
          />
        ) : null}
        {register.error ? <Notice tone="error">{refusal(register.error)}</Notice> : null}
        <button type="submit" className="button button-primary button-wide" disabled={register.isPending}>
          {register.isPending ? "Signing up…" : "Sign up"}
        </button>
      </form>
      <p className="auth-links">
        Already have an account? <Link href={paths.signIn}>Sign in</Link>
      </p>
    </AuthLayout>
  );
}
