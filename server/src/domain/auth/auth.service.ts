/**
 * Account flows. `register`, `forgot` and `resend` do the same work whatever the address (normalise, check
 * limits, enqueue a job) so that their answers and timing reveal nothing; the account-dependent work happens in
 * the jobs (`auth.jobs.ts`). `clientKey` is the caller's rate-limit key (`clientIpKey`: the IPv4, or the IPv6 /64).
 */
import { createHmac } from "node:crypto";
import type { components } from "@service/spec/schema";
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import { withTransaction } from "../../db/transaction.ts";
import { AppError } from "../../errors.ts";
import { type EmailAddress, normalizeEmail } from "../../lib/email-address.ts";
import { newId } from "../../lib/ids.ts";
import { randomToken, sha256 } from "../../lib/secrets.ts";
import type { Limiters } from "../../rate-limit/limiters.ts";
import { LIMIT_CHAINS, type LimitDecision } from "../../rate-limit/policy.ts";
import { insertWorkspace } from "../workspaces/workspaces.store.ts";
import * as store from "./auth.store.ts";
import type { DisposableCheck } from "./disposable.ts";
import { decoyHash, hashPassword, type ScryptParams, verifyPassword } from "./passwords.ts";

export const AUTH_QUEUES = { register: "auth-register", forgot: "auth-forgot", resend: "auth-resend" } as const;

export const SESSION_TTL_SECONDS = 14 * 86400;

export interface RegisterJob {
  email: string;
  name: string | null;
  passwordHash: string;
  inviteCodeHash: string | null;
}

export interface EmailJob {
  email: string;
}

export interface AuthDeps {
  pool: pg.Pool;
  queue: PgBoss;
  limiters: Limiters;
  isDisposable: DisposableCheck;
  registrationMode: "open" | "invite";
  scrypt: ScryptParams;
}

export interface LimitedAnswer {
  headers: Record<string, string>;
  throttled: boolean;
}

function emailOrFail(raw: string): EmailAddress {
  const email = normalizeEmail(raw);
  if (!email) {
    throw new AppError("VALIDATION_FAILED", { errors: [{ path: "body.email", message: "is not an e-mail address" }] });
  }
  return email;
}

function rejectOrThrottle(decision: LimitDecision): LimitedAnswer {
  if (decision.outcome === "unavailable") {
    throw new AppError("SERVICE_UNAVAILABLE", { headers: decision.headers, cause: decision.cause });
  }
  if (decision.outcome === "reject") {
    throw new AppError("RATE_LIMITED", {
      detail: `Too many requests; retry after ${decision.retryAfter} seconds.`,
      headers: decision.headers,
    });
  }
  return { headers: decision.headers, throttled: decision.outcome === "throttle" };
}

/** A small password policy beyond length: not the address itself, not a run of one or two characters. */
export function passwordProblem(password: string, email: EmailAddress): string | undefined {
  const lower = password.toLowerCase();
  if (lower === email.address || lower === email.address.split("@")[0]) return "must not be the e-mail address";
  if (new Set(password).size < 4) return "must use at least 4 different characters";
  return undefined;
}

/** The CSRF token of a session: an HMAC of its cookie value, so it needs no storage and dies with the session. */
export function csrfTokenFor(sessionToken: string): string {
  return createHmac("sha256", sessionToken).update("csrf").digest("base64url");
}

/** A session as the console sees it: its user, its workspace, and the CSRF token that its writes must echo. */
export function toSession(row: store.SessionRow, token: string): components["schemas"]["Session"] {
  return {
    object: "session",
    user: {
      id: row.user_id,
      object: "user",
      email: row.email,
      name: row.name,
      email_verified: true,
      created_at: row.user_created_at.toISOString(),
    },
    workspace: {
      id: row.workspace_id,
      object: "workspace",
      name: row.workspace_name,
      created_at: row.workspace_created_at.toISOString(),
    },
    csrf_token: csrfTokenFor(token),
    expires_at: row.expires_at.toISOString(),
  };
}

export function createAuthService(deps: AuthDeps) {
  const emailRequest = async (
    chain: "forgot" | "resend",
    queueName: string,
    input: { email: string },
    clientKey: string,
  ): Promise<LimitedAnswer> => {
    const email = emailOrFail(input.email);
    const answer = rejectOrThrottle(
      await deps.limiters.consume(LIMIT_CHAINS[chain], (rule) => (rule.keyedBy === "ip" ? clientKey : email.address)),
    );
    if (!answer.throttled) await send(deps.queue, queueName, { email: email.address } satisfies EmailJob);
    return answer;
  };

  return {
    async register(
      input: { email: string; password: string; name?: string; invite_code?: string },
      clientKey: string,
    ): Promise<LimitedAnswer> {
      const email = emailOrFail(input.email);
      // Contract rule 2: the disposable check runs before any counter and costs nothing.
      if (deps.isDisposable(email.domain)) {
        throw new AppError("DISPOSABLE_EMAIL", { detail: "Use a permanent e-mail address." });
      }
      const answer = rejectOrThrottle(
        await deps.limiters.consume(LIMIT_CHAINS.register, (rule) =>
          rule.keyedBy === "ip" ? clientKey : email.address,
        ),
      );
      let inviteCodeHash: Buffer | null = null;
      if (deps.registrationMode === "invite") {
        if (!input.invite_code) throw new AppError("INVITE_REQUIRED");
        inviteCodeHash = sha256(input.invite_code);
        if (!(await store.findUsableInvite(deps.pool, inviteCodeHash, email.address)))
          throw new AppError("INVITE_INVALID");
      }
      const problem = passwordProblem(input.password, email);
      if (problem) throw new AppError("PASSWORD_TOO_WEAK", { errors: [{ path: "body.password", message: problem }] });
      const job: RegisterJob = {
        email: email.address,
        name: input.name ?? null,
        passwordHash: await hashPassword(input.password, deps.scrypt),
        inviteCodeHash: inviteCodeHash?.toString("hex") ?? null,
      };
      await send(deps.queue, AUTH_QUEUES.register, job);
      return answer;
    },

    /** Limits, then (unless throttled) the job that e-mails the account, if there is one. */
    forgot: (input: { email: string }, clientKey: string) =>
      emailRequest("forgot", AUTH_QUEUES.forgot, input, clientKey),
    resend: (input: { email: string }, clientKey: string) =>
      emailRequest("resend", AUTH_QUEUES.resend, input, clientKey),

    async verify(token: string): Promise<void> {
      await withTransaction(deps.pool, async (client) => {
        const target = await store.consumeToken(client, sha256(token), "verify");
        const registration = target?.registration_id
          ? await store.registrationById(client, Number(target.registration_id))
          : undefined;
        if (!registration || (await store.findUserByEmail(client, registration.email))) {
          throw new AppError("TOKEN_INVALID");
        }
        const userId = newId("user");
        const workspaceId = newId("workspace");
        const owner = registration.name ?? registration.email.split("@")[0];
        await insertWorkspace(client, { id: workspaceId, name: `${owner}'s workspace` });
        await store.insertUser(client, {
          id: userId,
          email: registration.email,
          name: registration.name,
          passwordHash: registration.password_hash,
          workspaceId,
        });
        if (registration.invite_code_hash && !(await store.useInvite(client, registration.invite_code_hash, userId))) {
          throw new AppError("INVITE_INVALID");
        }
        await store.deleteRegistrations(client, registration.email);
      });
    },

    async login(input: { email: string; password: string }, clientKey: string) {
      const email = emailOrFail(input.email);
      rejectOrThrottle(
        await deps.limiters.consume(LIMIT_CHAINS.login, (rule) => (rule.keyedBy === "ip" ? clientKey : email.address)),
      );
      const user = await store.findUserByEmail(deps.pool, email.address);
      if (user?.password_hash && (await verifyPassword(input.password, user.password_hash))) {
        const token = randomToken();
        const expiresAt = await store.insertSession(deps.pool, {
          hash: sha256(token),
          userId: user.id,
          ttlSeconds: SESSION_TTL_SECONDS,
        });
        return { token, expiresAt };
      }
      if (!user) {
        const pending = await store.latestRegistrationHash(deps.pool, email.address);
        if (pending && (await verifyPassword(input.password, pending))) {
          // The owner of a registration not verified yet gets a new link, and the same answer as a wrong password:
          // telling the two apart would undo the identical answers of register, forgot and resend (anyone can
          // register an address with a password of their own, then learn from sign-in whether it had an account).
          await emailRequest("resend", AUTH_QUEUES.resend, { email: email.address }, clientKey).catch((error) => {
            if (!(error instanceof AppError && error.code === "RATE_LIMITED")) throw error;
          });
        }
        // Same work as a wrong password, so that timing does not tell which addresses have accounts.
        if (!pending) await verifyPassword(input.password, await decoyHash(deps.scrypt));
      }
      throw new AppError("INVALID_CREDENTIALS", {
        detail: "The e-mail or password is wrong, or the address is not verified yet (a new link was sent if so).",
      });
    },

    async reset(input: { token: string; password: string }): Promise<void> {
      await withTransaction(deps.pool, async (client) => {
        const target = await store.consumeToken(client, sha256(input.token), "reset");
        if (!target?.user_id) throw new AppError("TOKEN_INVALID");
        const email = normalizeEmail((await store.findUserEmail(client, target.user_id)) ?? "");
        const problem = email ? passwordProblem(input.password, email) : undefined;
        if (problem) throw new AppError("PASSWORD_TOO_WEAK", { errors: [{ path: "body.password", message: problem }] });
        await store.setPassword(client, target.user_id, await hashPassword(input.password, deps.scrypt));
        // A reset is often a response to a compromise: every existing session ends, and so does every other reset
        // link sent before (one may sit in a mailbox that the attacker reads).
        await store.revokeSessionsOf(client, target.user_id);
        await store.voidTokensOf(client, target.user_id, "reset");
      });
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

async function send(queue: PgBoss, name: string, data: object): Promise<void> {
  // The queue's retries are set where it is defined (auth.jobs.ts). A null id means the job was not made.
  const id = await queue.send(name, data);
  if (id === null) throw new Error(`queue ${name} refused the job`);
}
