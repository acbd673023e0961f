/**
 * The scheduler Lambda (EventBridge, every minute): expires charges whose window closed and
 * releases held balances whose hold is over. Each item is its own guarded transaction, so a run
 * that overlaps another, or is retried, changes nothing twice.
 */

import { log } from '#shared/log.ts';
import { expireDueCharges } from '#shared/services/expire-charge.ts';
import { releaseDueTranches } from '#shared/services/release-tranches.ts';

export const handler = async (): Promise<{ expired: number; released: number }> => {
  const now = new Date();
  const [expired, released] = await Promise.all([expireDueCharges(now), releaseDueTranches(now)]);
  if (expired > 0 || released > 0) log.info('scheduler run', { expired, released });
  return { expired, released };
};
