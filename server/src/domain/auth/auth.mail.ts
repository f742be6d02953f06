/** The texts of account e-mails. Links point at PUBLIC_BASE_URL; the token is in the fragment, never logged by servers. */
import type { Mail } from "../../mail/mailer.ts";

export function verificationMail(to: string, baseUrl: string, token: string): Mail {
  const link = `${baseUrl}/verify-email#token=${token}`;
  return {
    to,
    link,
    kind: "verify",
    subject: "Confirm your e-mail address",
    text: `Confirm your address to finish creating your account:\n\n${link}\n\nThe link works once, for 24 hours. If you did not register, ignore this e-mail.\n`,
  };
}

export function resetMail(to: string, baseUrl: string, token: string): Mail {
  const link = `${baseUrl}/reset-password#token=${token}`;
  return {
    to,
    link,
    kind: "reset",
    subject: "Reset your password",
    text: `Choose a new password:\n\n${link}\n\nThe link works once, for 1 hour. If you did not ask for it, ignore this e-mail: your password is unchanged.\n`,
  };
}

export function accountExistsMail(to: string, baseUrl: string): Mail {
  return {
    to,
    kind: "account-exists",
    link: `${baseUrl}/login`,
    subject: "You already have an account",
    text: `Someone tried to register with this address, which already has an account. If it was you, sign in at ${baseUrl}/login or reset your password at ${baseUrl}/forgot-password. If not, ignore this e-mail.\n`,
  };
}
