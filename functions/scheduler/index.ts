/**
 * The scheduler Lambda (EventBridge, every minute): expires charges whose window closed and
 * releases held balances whose hold is over, and moves refunds on as the acquirer confirms them.
 * Each item is its own guarded transaction, so a run
 * that overlaps another, or is retried, changes nothing twice.
 */

import { log } from '#shared/log.ts';
import { withMetrics } from '#shared/metrics.ts';
import { advanceDueRefunds } from '#shared/services/advance-refund.ts';
import { expireDueCharges } from '#shared/services/expire-charge.ts';
import { releaseDueTranches } from '#shared/services/release-tranches.ts';

const runScheduler = async (): Promise<{ expired: number; released: number; refunds: number }> => {
  const now = new Date();
  const [expired, released, refunds] = await Promise.all([
    expireDueCharges(now),
    releaseDueTranches(now),
    advanceDueRefunds(now),
  ]);
  if (expired > 0 || released > 0 || refunds > 0) log.info('scheduler run', { expired, released, refunds });
  return { expired, released, refunds };
};

/** Its metrics (the acquirer's calls of live refunds) are written when each run ends. */
export const handler = withMetrics(runScheduler);
