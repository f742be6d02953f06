/**
 * The disposable-e-mail check of registration: the community-maintained blocklist of
 * disposable-email-domains (via the `disposable-email-domains-js` package), loaded once, matched on the domain
 * and each of its parents (`x.mailinator.com` is `mailinator.com`), with the operator's own allow and deny lists
 * on top (allow wins).
 */
import { disposableEmailBlocklistSet } from "disposable-email-domains-js";

export interface DisposableCheckOptions {
  allow: readonly string[];
  deny: readonly string[];
}

export type DisposableCheck = (domain: string) => boolean;

/** The domain and its parents, down to the last two labels: `a.b.example.com` → that, `b.example.com`, `example.com`. */
export function domainAndParents(domain: string): string[] {
  const labels = domain.split(".");
  const out: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join("."));
  return out;
}

export function createDisposableCheck(
  options: DisposableCheckOptions,
  blocklist: ReadonlySet<string> = disposableEmailBlocklistSet(),
): DisposableCheck {
  const allow = new Set(options.allow.map((d) => d.toLowerCase()));
  const deny = new Set(options.deny.map((d) => d.toLowerCase()));
  return function isDisposable(domain: string): boolean {
    const candidates = domainAndParents(domain.toLowerCase());
    if (candidates.some((candidate) => allow.has(candidate))) return false;
    return candidates.some((candidate) => deny.has(candidate) || blocklist.has(candidate));
  };
}
