/** The e-mails the test runtime sent, read from the SES emulator's store (`GET /store`). */

import { testSesUrl } from './local-env.ts';

/** One message as `aws-ses-v2-local` keeps it. */
export interface SentEmail {
  messageId: string;
  from: string;
  replyTo: string[];
  destination: { to: string[]; cc: string[]; bcc: string[] };
  subject: string;
  body: { text?: string; html?: string };
  /** Epoch seconds. */
  at: number;
}

export async function sentEmails(sesUrl = testSesUrl): Promise<SentEmail[]> {
  const reply = await fetch(`${sesUrl}/store`);
  if (!reply.ok) throw new Error(`SES emulator store answered ${reply.status}`);
  return ((await reply.json()) as { emails: SentEmail[] }).emails;
}

/** The messages sent to `address`, oldest first. */
export const emailsTo = async (address: string, sesUrl = testSesUrl): Promise<SentEmail[]> =>
  (await sentEmails(sesUrl)).filter((email) => email.destination.to.includes(address));

/** A fresh address nobody else in the suite uses. */
export const newContactEmail = (): string => `merchant-${crypto.randomUUID()}@example.com`;
