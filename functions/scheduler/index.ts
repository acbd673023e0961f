/**
 * The scheduler Lambda (EventBridge, every minute): expires charges whose window closed and
 * releases held balances whose hold is over, moves refunds on as the acquirer confirms them, and
 * reconciles with the live acquirers (Pix whose callback was lost).
 * Each item is its own guarded transaction, so a run
 * that overlaps another, or is retried, changes nothing twice.
 */

import { log } from '#shared/log.ts';
import { withMetrics } from '#shared/metrics.ts';
import { withAcquirerBudget } from '#shared/providers/call-budget.ts';
import { advanceDueRefunds } from '#shared/services/advance-refund.ts';
import { expireDueCharges } from '#shared/services/expire-charge.ts';
import { reconcileDueAcquirers } from '#shared/services/reconcile-acquirer.ts';
import { releaseDueTranches } from '#shared/services/release-tranches.ts';

const runScheduler = async (): Promise<{
  expired: number;
  released: number;
  refunds: number;
  reconciled: number;
}> => {
  const now = new Date();
  const [expired, released, refunds, reconciled] = await Promise.all([
    expireDueCharges(now),
    releaseDueTranches(now),
    advanceDueRefunds(now),
    reconcileDueAcquirers(now),
  ]);
  if (expired > 0 || released > 0 || refunds > 0 || reconciled > 0)
    log.info('scheduler run', { expired, released, refunds, reconciled });
  return { expired, released, refunds, reconciled };
};

/**
 * Its metrics (the acquirer's calls of live refunds) are written when each run ends. Its acquirer
 * calls share the `background` budget, within its timeout (shared/resources.ts); what a slow PSP
 * leaves undone is still due at the next run.
 */
export const handler = withMetrics(() => withAcquirerBudget('background', runScheduler));
