/**
 * The names of the rate limiters, and the changes configuration may make to their rules. They sit in the ground
 * layer because both sides need them: settings (config.ts) parse them from the environment, and the rules
 * (rate-limit/policy.ts) are keyed by them; settings import nothing from the layers above them.
 */

/**
 * Every limiter: the contract's table in its order, login's, then the request budgets. `LIMIT_RULES` is a record over
 * these names, so a name without its rule, or a rule without its name, does not compile.
 */
export const LIMITER_NAMES = [
  "register-ip",
  "register-email",
  "forgot-ip",
  "forgot-email",
  "resend-ip",
  "resend-cooldown",
  "resend-email",
  "login-ip",
  "login-email",
  "api-key",
  "session",
] as const;

export type LimiterName = (typeof LIMITER_NAMES)[number];

/** Configuration's changes to the rules: budgets of the request limiters, and short windows in tests. */
export interface LimitOverrides {
  readonly windows: Readonly<Partial<Record<LimiterName, number>>>;
  readonly points: Readonly<Partial<Record<LimiterName, number>>>;
}
