/**
 * Every page of the console, by path. The build writes these patterns to `dist/routes.json`, and the server answers
 * `index.html` for them only. The e-mails link to `verifyEmail`, `resetPassword` and `signIn`.
 */
export const paths = {
  home: "/",
  signUp: "/sign-up",
  checkInbox: "/check-inbox",
  verifyEmail: "/verify-email",
  signIn: "/login",
  forgotPassword: "/forgot-password",
  resetPassword: "/reset-password",
  resendVerification: "/resend-verification",
  developers: "/settings/developers",
  apiKeys: "/settings/developers/api-keys",
  webhooks: "/settings/developers/webhooks",
  events: "/settings/developers/events",
  attributes: "/settings/developers/attributes",
  webhook: "/settings/developers/webhooks/:webhookId",
  delivery: "/settings/developers/webhooks/:webhookId/deliveries/:deliveryId",
} as const;

export const CONSOLE_ROUTES: string[] = Object.values(paths);

export function webhookPath(webhookId: string): string {
  return paths.webhook.replace(":webhookId", encodeURIComponent(webhookId));
}

export function deliveryPath(webhookId: string, deliveryId: string): string {
  return paths.delivery
    .replace(":webhookId", encodeURIComponent(webhookId))
    .replace(":deliveryId", encodeURIComponent(deliveryId));
}

/** Where to go after signing in: a path of this console only, never another origin (open redirect). */
export function safeNext(next: string | null): string {
  if (!next?.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return paths.developers;
  return next;
}
