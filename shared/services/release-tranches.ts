/**
 * Releases: a settlement held for the account's hold period moves from `pending` to `available`
 * when its tranche is due. Each release is one transaction that deletes the tranche (only if it
 * still exists) with its journal, so overlapping runs release each tranche once.
 */

import { planRelease } from '../domain/settlement.ts';
import { newJournalId } from '../ids.ts';
import { log } from '../log.ts';
import { dueEntries, releasedTrancheItem, trancheWalletShard } from '../store/charges.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { journalItems } from '../store/ledger.ts';

/** Scheduler: releases every tranche whose hold is over. Returns how many it released. */
export async function releaseDueTranches(now: Date): Promise<number> {
  let released = 0;
  const at = now.toISOString();
  for (const { scope, id: chargeId, key, item } of await dueEntries('RELEASE', now)) {
    const journal = planRelease(chargeId, { amount: Number(item.amount), currency: String(item.currency) });
    const result = await transactRetryingConflicts({
      tranche: releasedTrancheItem(key),
      // Pending → available within the shard the settlement credited (the tranche keeps it).
      journal: journalItems(scope, journal, at, newJournalId(), { shard: trancheWalletShard(item) }),
    });
    if (result.committed) released++;
    else log.info('tranche already released', { chargeId });
  }
  return released;
}
