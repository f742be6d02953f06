/** The frame of the signed-in pages: top bar with the workspace and Sign out, the settings navigation, the page. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Link, useLocation } from "wouter";
import { api } from "../api/client.ts";
import { describeError, unwrap } from "../api/errors.ts";
import { paths } from "../routes.ts";
import { type Mode, setMode, useMode } from "../session/mode.ts";
import { useCsrfHeader, useSession } from "../session/session.ts";
import { usePageHeading } from "./page-title.ts";
import { Notice } from "./states.tsx";

function NavLink({ href, children, exact = false }: { href: string; children: ReactNode; exact?: boolean }) {
  const [location] = useLocation();
  const current = exact ? location === href : location === href || location.startsWith(`${href}/`);
  return (
    <Link href={href} className="nav-link" aria-current={current ? "page" : undefined}>
      {children}
    </Link>
  );
}

function SignOut() {
  const csrf = useCsrfHeader();
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST("/api/auth/logout", { params: { header: csrf } })),
    onSettled: (_data, error) => {
      if (error) return;
      queryClient.clear();
      navigate(`${paths.signIn}?notice=signed-out`, { replace: true });
    },
  });
  return (
    <>
      <button
        type="button"
        className="button button-quiet"
        onClick={() => signOut.mutate()}
        disabled={signOut.isPending}
      >
        Sign out
      </button>
      {signOut.error ? <Notice tone="error">{describeError(signOut.error)}</Notice> : null}
    </>
  );
}

/**
 * The switch between live and test mode. The other mode's data must never show under this one's switch: its queries
 * are cancelled and dropped before the switch flips, and a page of one object (a webhook, a delivery) goes back to
 * its list, where the object of the other mode would be a 404.
 */
function ModeSwitch() {
  const mode = useMode();
  const queryClient = useQueryClient();
  const [location, navigate] = useLocation();
  const change = (next: Mode) => {
    const modeData = { predicate: (query: { queryKey: readonly unknown[] }) => query.queryKey[0] !== "session" };
    void queryClient.cancelQueries(modeData);
    queryClient.removeQueries(modeData);
    setMode(next);
    if (location.startsWith(`${paths.webhooks}/`)) navigate(paths.webhooks);
  };
  return (
    <label className="mode-switch">
      <input
        type="checkbox"
        role="switch"
        aria-checked={mode === "test"}
        checked={mode === "test"}
        onChange={(event) => change(event.target.checked ? "test" : "live")}
      />
      Test mode
    </label>
  );
}

export function AppLayout({
  title,
  breadcrumb,
  actions,
  children,
}: {
  title: string;
  breadcrumb?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const session = useSession();
  const heading = usePageHeading(title);
  const mode = useMode();
  return (
    <div className="app" data-mode={mode}>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="topbar">
        <Link href={paths.developers} className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>
          Service Platform
        </Link>
        <div className="topbar-account">
          <ModeSwitch />
          <span className="topbar-workspace">{session.workspace.name}</span>
          <span className="topbar-user">{session.user.email}</span>
          <SignOut />
        </div>
      </header>
      {mode === "test" ? (
        <p className="test-mode-banner" role="status">
          Test mode: the keys, webhooks, deliveries and events here are test data. Keys made here start with sk_test_
          and reach test data only.
        </p>
      ) : null}
      <div className="app-body">
        <nav aria-label="Workspace settings" className="sidenav">
          <p className="sidenav-title">Workspace settings</p>
          <ul>
            <li>
              <NavLink href={paths.developers} exact>
                Developers
              </NavLink>
              <ul>
                <li>
                  <NavLink href={paths.apiKeys}>API keys</NavLink>
                </li>
                <li>
                  <NavLink href={paths.webhooks}>Webhooks</NavLink>
                </li>
                <li>
                  <NavLink href={paths.events}>Events</NavLink>
                </li>
                <li>
                  <NavLink href={paths.attributes}>Attributes</NavLink>
                </li>
              </ul>
            </li>
          </ul>
        </nav>
        <main id="main" className="page">
          {breadcrumb ? <div className="breadcrumb">{breadcrumb}</div> : null}
          <div className="page-header">
            <h1 ref={heading} tabIndex={-1}>
              {title}
            </h1>
            {actions ? <div className="page-actions">{actions}</div> : null}
          </div>
          {children}
        </main>
      </div>
    </div>
  );
}
