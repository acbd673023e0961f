/**
 * Reconciliation with the live acquirers (README, "Going live", Reconciliation), on the scheduler, so a Pix whose
 * callback was lost is still settled, once per end-to-end id (`settle-acquirer-pix.ts`):
 * - before a live charge is expired or cancelled, its cob is read (`settle-concluded-cob.ts`);
 * - every `RECONCILIATION_PERIOD_SECONDS`, each account's `GET /pix` from its last run's end
 *   (less an overlap) to now settles whatever was missed; the cursor moves only when every Pix of
 *   the period was settled; the same run reads the infraction reports changed in the period
 *   (the MED port, where the acquirer offers one) and applies them to MED cases, then retries
 *   those waiting for a refund in flight (kept, since the PSP lists a report only when it changes).
 */

import { config } from '../config.ts';
import { errorFields, log } from '../log.ts';
import { type InfractionReport, type PixProvider, ProviderRefusal } from '../providers/provider.ts';
import { getAccount } from '../store/accounts.ts';
import { dueEntries } from '../store/charges.ts';
import { transact } from '../store/client.ts';
import { type ReconciliationCursor, reconciliationItem } from '../store/live-acquirer.ts';
import { applyAcquirerInfraction, applyWaitingAcquirerInfractions } from './apply-acquirer-infraction.ts';
import { liveAcquirerOf, settlePixAt } from './settle-acquirer-pix.ts';

/** After a failed run, the account is tried again this much later at the earliest. */
const RETRY_AFTER_FAILURE_MS = 60_000;

/** Accounts reconciled at once: one slow or unreachable acquirer must not hold the others (or the run) up. */
const CONCURRENT_ACCOUNTS = 10;

/** Scheduler: `GET /pix` at every account whose reconciliation is due. Returns how many Pix it settled. */
export async function reconcileDueAcquirers(now: Date): Promise<number> {
  const entries = await dueEntries('RECONCILE', now);
  let settled = 0;
  for (let start = 0; start < entries.length; start += CONCURRENT_ACCOUNTS) {
    const counts = await Promise.all(
      entries.slice(start, start + CONCURRENT_ACCOUNTS).map(async (entry) => {
        const accountId = entry.scope.accountId;
        const from = String(entry.item.reconciledTo);
        const readAt = String(entry.item.gsi2sk);
        try {
          return await reconcileAccount(accountId, from, now, readAt);
        } catch (error) {
          log.error('reconciliation failed; retried later', { accountId, ...errorFields(error) });
          const retryAt = new Date(now.getTime() + Math.max(RETRY_AFTER_FAILURE_MS, periodMs()));
          await moveCursor({ accountId, reconciledTo: from }, retryAt, readAt);
          return 0;
        }
      }),
    );
    settled += counts.reduce((sum, n) => sum + n, 0);
  }
  return settled;
}

const periodMs = (): number => config.reconciliationPeriodSeconds * 1000;

/** Moves the cursor read at `readAt`; a cursor moved meanwhile by another writer is left as it is. */
async function moveCursor(cursor: ReconciliationCursor, dueAt: Date, readAt: string): Promise<void> {
  const { committed } = await transact({ cursor: reconciliationItem(cursor, dueAt.toISOString(), readAt) });
  if (!committed) log.info('reconciliation cursor moved by another writer; left as it is', { ...cursor });
}

async function reconcileAccount(
  accountId: string,
  reconciledTo: string,
  now: Date,
  readAt: string,
): Promise<number> {
  const account = await getAccount(accountId);
  const provider = account && liveAcquirerOf(account);
  let settled = 0;
  if (account && provider) {
    const from = new Date(
      Math.min(Date.parse(reconciledTo), now.getTime()) - config.reconciliationOverlapSeconds * 1000,
    );
    for (const pix of await provider.listPix({ from, to: now })) {
      const outcome = await settlePixAt(account, provider, pix.endToEndId, pix);
      if (outcome === 'settled') {
        settled++;
        log.info('acquirer Pix', { accountId, endToEndId: pix.endToEndId, outcome, via: 'reconciliation' });
      }
    }
    await applyInfractions(accountId, provider, { from, to: now });
  }
  await moveCursor(
    { accountId, reconciledTo: now.toISOString() },
    new Date(now.getTime() + periodMs()),
    readAt,
  );
  return settled;
}

/**
 * The MED port's reports of the period, then the account's reports waiting for refunds in flight;
 * an acquirer that refuses the port holds nothing else up.
 */
async function applyInfractions(
  accountId: string,
  provider: PixProvider,
  period: { from: Date; to: Date },
): Promise<void> {
  let reports: InfractionReport[] = [];
  try {
    if (provider.listInfractions) reports = await provider.listInfractions(period);
  } catch (error) {
    if (!(error instanceof ProviderRefusal)) throw error;
    log.warn('acquirer offers no infraction reports', { accountId, why: error.message });
  }
  for (const report of reports) await applyAcquirerInfraction(accountId, report);
  // Not listed again once past the overlap: reports waiting for refunds in flight are kept and retried here.
  await applyWaitingAcquirerInfractions(accountId, new Set(reports.map((report) => report.id)));
}
