/**
 * The account-dependent halves of register, forgot and resend-verification, run by the worker so that the HTTP
 * answers cannot depend on whether an account exists.
 */
import type pg from "pg";
import type { PgBoss } from "pg-boss";
import type { Logger } from "pino";
import { defineQueue } from "../../jobs/queue.ts";
import { randomToken, sha256 } from "../../lib/secrets.ts";
import type { Mailer } from "../../mail/mailer.ts";
import { accountExistsMail, resetMail, verificationMail } from "./auth.mail.ts";
import { AUTH_QUEUES, type EmailJob, type RegisterJob } from "./auth.service.ts";
import * as store from "./auth.store.ts";

const VERIFY_TOKEN_TTL_SECONDS = 24 * 3600;
const RESET_TOKEN_TTL_SECONDS = 3600;

export interface AuthJobDeps {
  pool: pg.Pool;
  mailer: Mailer;
  publicBaseUrl: string;
  logger: Logger;
}

function authJobHandlers(deps: AuthJobDeps) {
  const issueVerification = async (email: string, registrationId: number) => {
    const token = randomToken();
    await store.insertToken(deps.pool, {
      hash: sha256(token),
      purpose: "verify",
      registrationId,
      ttlSeconds: VERIFY_TOKEN_TTL_SECONDS,
    });
    await deps.mailer.send(verificationMail(email, deps.publicBaseUrl, token));
  };

  return {
    async register(job: RegisterJob): Promise<void> {
      if (await store.findUserByEmail(deps.pool, job.email)) {
        await deps.mailer.send(accountExistsMail(job.email, deps.publicBaseUrl));
        return;
      }
      // The newest attempt wins: earlier attempts and their links stop working, so that an attempt made by
      // someone else before the owner registers cannot be activated by the owner's later click.
      await store.deleteRegistrations(deps.pool, job.email);
      const registrationId = await store.insertRegistration(deps.pool, {
        email: job.email,
        name: job.name,
        passwordHash: job.passwordHash,
        inviteCodeHash: job.inviteCodeHash ? Buffer.from(job.inviteCodeHash, "hex") : null,
      });
      await issueVerification(job.email, registrationId);
    },

    async forgot(job: EmailJob): Promise<void> {
      const user = await store.findUserByEmail(deps.pool, job.email);
      if (!user) return;
      const token = randomToken();
      await store.insertToken(deps.pool, {
        hash: sha256(token),
        purpose: "reset",
        userId: user.id,
        ttlSeconds: RESET_TOKEN_TTL_SECONDS,
      });
      await deps.mailer.send(resetMail(job.email, deps.publicBaseUrl, token));
    },

    async resend(job: EmailJob): Promise<void> {
      if (await store.findUserByEmail(deps.pool, job.email)) return;
      const registration = await store.latestRegistration(deps.pool, job.email);
      if (registration) await issueVerification(job.email, registration.id);
    },
  };
}

/**
 * Creates the queues (a job sent to a queue that does not exist is refused) and, for workers, works them. A mail
 * server that fails is tried again five times, backing off from 5 s; LISTEN/NOTIFY wakes a worker when a job is made.
 */
export async function registerAuthJobs(queue: PgBoss, deps: AuthJobDeps, options: { work: boolean }): Promise<void> {
  for (const name of Object.values(AUTH_QUEUES)) {
    await defineQueue(queue, name, { notify: true, retryLimit: 5, retryDelay: 5, retryBackoff: true });
  }
  if (!options.work) return;
  const handlers = authJobHandlers(deps);
  const work = <T extends object>(name: string, handle: (data: T) => Promise<void>) =>
    // pg-boss hands the handler an array of jobs.
    queue.work<T>(name, { pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 5 }, async (jobs) => {
      for (const job of jobs) await handle(job.data);
    });
  await work<RegisterJob>(AUTH_QUEUES.register, handlers.register);
  await work<EmailJob>(AUTH_QUEUES.forgot, handlers.forgot);
  await work<EmailJob>(AUTH_QUEUES.resend, handlers.resend);
}
