/**
 * Outbound e-mail through Amazon SES v2 (`SendEmail`, simple content: subject, text and HTML,
 * UTF-8). An outbound adapter: it sends what it is handed, from the configured sender, and reads
 * no table. Locally the endpoint is the `aws-ses-v2-local` emulator (`AWS_ENDPOINT_URL_SESV2`).
 */

import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { config } from '../config.ts';
import type { EmailMessage } from '../domain/med-emails.ts';

// One attempt per call: the caller owns the retry policy (backoff, then give up). Short timeouts:
// a hanging SES must not hold the outbox batch up to its Lambda timeout (4 attempts and 3 backoffs ≤ 23 s < 60 s).
const ses = new SESv2Client({
  maxAttempts: 1,
  requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
});

const utf8 = (data: string) => ({ Data: data, Charset: 'UTF-8' });

/** Sends `message` to `to`; resolves with SES's message id, rejects on any failure. */
export async function sendEmail(to: string, message: EmailMessage): Promise<string | undefined> {
  const sent = await ses.send(
    new SendEmailCommand({
      FromEmailAddress: config.emailFrom,
      ...(config.emailReplyTo !== undefined && { ReplyToAddresses: [config.emailReplyTo] }),
      Destination: { ToAddresses: [to] },
      Content: {
        Simple: {
          Subject: utf8(message.subject),
          Body: { Text: utf8(message.text), Html: utf8(message.html) },
        },
      },
    }),
  );
  return sent.MessageId;
}
