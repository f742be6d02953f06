/** The console's pages by path, and what happens when the session ends mid-way. */
import { useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect } from "react";
import { Link, Redirect, Route, Switch, useLocation } from "wouter";
import { SESSION_EXPIRED, sessionEvents } from "./api/client.ts";
import { AuthLayout } from "./components/auth-layout.tsx";
import { Loading } from "./components/states.tsx";
import { CheckInboxPage } from "./pages/auth/check-inbox.tsx";
import { ForgotPasswordPage, ResendVerificationPage } from "./pages/auth/email-request.tsx";
import { ResetPasswordPage } from "./pages/auth/reset-password.tsx";
import { SignInPage } from "./pages/auth/sign-in.tsx";
import { SignUpPage } from "./pages/auth/sign-up.tsx";
import { VerifyEmailPage } from "./pages/auth/verify-email.tsx";
import { ApiKeysPage } from "./pages/developers/api-keys.tsx";
import { AttributesPage } from "./pages/developers/attributes.tsx";
import { DeliveryPage } from "./pages/developers/delivery.tsx";
import { EventsPage } from "./pages/developers/events.tsx";
import { DevelopersPage } from "./pages/developers/overview.tsx";
import { WebhookPage } from "./pages/developers/webhook.tsx";
import { WebhooksPage } from "./pages/developers/webhooks.tsx";
import { paths } from "./routes.ts";
import { RequireSession } from "./session/require-session.tsx";
import { useSessionQuery } from "./session/session.ts";

/** `/`: the workspace when signed in, sign-up for a newcomer. */
function Home() {
  const session = useSessionQuery();
  if (session.isPending) return <Loading />;
  return <Redirect to={session.data ? paths.developers : paths.signUp} replace />;
}

function NotFound() {
  return (
    <AuthLayout title="Page not found">
      <p>There is no page at this address.</p>
      <p className="auth-links">
        <Link href={paths.home}>Go to the console</Link>
      </p>
    </AuthLayout>
  );
}

/** A request of a signed-in page answered 401: back to Sign in, and to this page afterwards. */
function useSessionExpiry() {
  const queryClient = useQueryClient();
  const [location, navigate] = useLocation();
  useEffect(() => {
    const expired = () => {
      queryClient.clear();
      const next = encodeURIComponent(location + window.location.search);
      navigate(`${paths.signIn}?notice=expired&next=${next}`, { replace: true });
    };
    sessionEvents.addEventListener(SESSION_EXPIRED, expired);
    return () => sessionEvents.removeEventListener(SESSION_EXPIRED, expired);
  }, [queryClient, location, navigate]);
}

function Private({ children }: { children: ReactNode }) {
  return <RequireSession>{children}</RequireSession>;
}

export function App() {
  useSessionExpiry();
  return (
    <Switch>
      <Route path={paths.home} component={Home} />
      <Route path={paths.signUp} component={SignUpPage} />
      <Route path={paths.checkInbox} component={CheckInboxPage} />
      <Route path={paths.verifyEmail} component={VerifyEmailPage} />
      <Route path={paths.signIn} component={SignInPage} />
      <Route path={paths.forgotPassword} component={ForgotPasswordPage} />
      <Route path={paths.resetPassword} component={ResetPasswordPage} />
      <Route path={paths.resendVerification} component={ResendVerificationPage} />
      <Route path={paths.developers}>
        <Private>
          <DevelopersPage />
        </Private>
      </Route>
      <Route path={paths.apiKeys}>
        <Private>
          <ApiKeysPage />
        </Private>
      </Route>
      <Route path={paths.webhooks}>
        <Private>
          <WebhooksPage />
        </Private>
      </Route>
      <Route path={paths.events}>
        <Private>
          <EventsPage />
        </Private>
      </Route>
      <Route path={paths.attributes}>
        <Private>
          <AttributesPage />
        </Private>
      </Route>
      <Route path={paths.webhook}>
        <Private>
          <WebhookPage />
        </Private>
      </Route>
      <Route path={paths.delivery}>
        <Private>
          <DeliveryPage />
        </Private>
      </Route>
      <Route component={NotFound} />
    </Switch>
  );
}
