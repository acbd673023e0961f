/**
 * MED notices by e-mail, from the outbox (`med_case.created`, `med.resolved`): each goes to the
 * account's contact e-mail (none set: nothing is sent, and that is logged), with the case as the
 * event carries it (an opening also reads whether its amount awaits review, so held nothing).
 *
 * An e-mail never blocks the case and never fails the stream batch: each send is tried a few
 * times with backoff, then logged and dropped. A replayed batch sends nothing twice: the event's
 * e-mail is claimed (a conditional put) before sending, and the claim is given back when sending
 * fails, so a later replay may try again. A Lambda stopped between claim and send loses that one
 * e-mail (the case and its webhooks are unaffected).
 */

import pRetry, { AbortError } from 'p-retry';
import type { MedCaseObject } from '../domain/med-cases.ts';
import { type MedNoticeEventType, medNoticeEmail } from '../domain/med-emails.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { errorFields, log } from '../log.ts';
import { getAccount } from '../store/accounts.ts';
import { claimEmailNotice, releaseEmailNotice } from '../store/email-notices.ts';
import { getMedCase } from '../store/med-cases.ts';
import { MARKER_TTL_SECONDS } from './stream-counting.ts';

export interface MedNotice {
  eventId: string;
  eventType: MedNoticeEventType;
  scope: MerchantScope;
  /** The public med_case of the event (its state when the event was written). */
  medCase: MedCaseObject;
}

/** Attempts after the first (so 4 in all), 0.2 s, 0.4 s, 0.8 s apart (with jitter): well inside the outbox's timeout. */
const SEND_RETRIES = 3;

/** An SES answer that a retry cannot change (a rejected message or address, a sender not verified). */
const isPermanent = (error: unknown): boolean => {
  const e = error as { $fault?: string; $retryable?: unknown };
  return e.$fault === 'client' && !e.$retryable;
};

async function emailOne(notice: MedNotice, now: Date): Promise<void> {
  const fields = { eventId: notice.eventId, caseId: notice.medCase.id, accountId: notice.scope.accountId };
  const account = await getAccount(notice.scope.accountId);
  const to = account?.settings.contactEmail;
  if (!account || !to) {
    // Said once per notice, so ops can tell a merchant who never set one (`set-contact-email`).
    log.info('med notice not e-mailed: the account has no contact e-mail', {
      ...fields,
      eventType: notice.eventType,
    });
    return;
  }
  // Loaded on the first notice only: most outbox batches carry none.
  const { sendEmail } = await import('../email/ses-mailer.ts');
  // Read before the claim: a read that fails leaves the notice unclaimed, so a replay sends it.
  // A reported amount other than the charge's holds nothing until an operator applies it.
  const awaitsAmountReview =
    notice.eventType === 'med_case.created' &&
    (await getMedCase(notice.scope, notice.medCase.id))?.pendingReview?.kind === 'amount_mismatch';
  const expiresAt = Math.floor(now.getTime() / 1000) + MARKER_TTL_SECONDS;
  if (!(await claimEmailNotice(notice.eventId, expiresAt))) return;
  const message = medNoticeEmail(notice.eventType, notice.medCase, {
    merchantName: account.settings.merchantName,
    mode: notice.scope.mode,
    amountHeld: !awaitsAmountReview,
  });
  let attempts = 0;
  try {
    await pRetry(
      async () => {
        attempts++;
        try {
          return await sendEmail(to, message);
        } catch (error) {
          throw isPermanent(error) ? new AbortError(error as Error) : error;
        }
      },
      { retries: SEND_RETRIES, minTimeout: 200, factor: 2, randomize: true },
    );
    log.info('med notice e-mailed', { ...fields, eventType: notice.eventType });
  } catch (error) {
    log.error('med notice e-mail not sent; given up', { ...fields, attempts, ...errorFields(error) });
    await releaseEmailNotice(notice.eventId);
  }
}

/** E-mails every notice of a stream batch at once. Never throws: failures are logged. */
export async function emailMedNotices(notices: (MedNotice | undefined)[], now = new Date()): Promise<void> {
  await Promise.all(
    notices.flatMap((notice) =>
      notice
        ? [
            emailOne(notice, now).catch((error: unknown) =>
              log.error('med notice e-mail failed', {
                eventId: notice.eventId,
                caseId: notice.medCase.id,
                ...errorFields(error),
              }),
            ),
          ]
        : [],
    ),
  );
}
