/** The frame of the signed-out pages: the product's name and one card. */
import type { ReactNode } from "react";
import { Link } from "wouter";
import { paths } from "../routes.ts";
import { usePageHeading } from "./page-title.ts";

export function AuthLayout({ title, children }: { title: string; children: ReactNode }) {
  const heading = usePageHeading(title);
  return (
    <div className="auth">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <header className="auth-header">
        <Link href={paths.home} className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>
          Service Platform
        </Link>
      </header>
      <main id="main" className="auth-card">
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {children}
      </main>
    </div>
  );
}
