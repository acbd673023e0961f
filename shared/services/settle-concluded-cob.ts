/**
 * What expiring or cancelling a live charge asks of its acquirer first (README, "Going live",
 * Reconciliation): its cob is read (`GET /cob/{txid}`), and a CONCLUIDA cob's Pix are settled
 * (`settle-acquirer-pix.ts`), so the expiry or cancel then finds the charge paid (or the Pix
 * late, and returned). An acquirer that cannot be reached keeps the charge on the expiry queue
 * for the next run, for an hour at most.
 */

import type { ChargeRecord } from '../domain/charges.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { errorFields, log } from '../log.ts';
import { type CobStatus, ProviderRefusal, ProviderUnavailableError } from '../providers/provider.ts';
import { getAccount } from '../store/accounts.ts';
import { getCharge } from '../store/charges.ts';
import { liveAcquirerOf, settlePixAt } from './settle-acquirer-pix.ts';

/** An acquirer down this long after a charge's window closed no longer holds its expiry up. */
const MAX_EXPIRY_DEFERRAL_MS = 60 * 60_000;

/**
 * Reads a live charge's cob and, when it is CONCLUIDA, settles the Pix it shows (as
 * reconciliation would); the cob's status, or undefined when there is no cob to read (sandbox,
 * no acquirer). Throws `ProviderUnavailableError` when the acquirer cannot be asked.
 */
export async function settleConcludedCob(
  scope: MerchantScope,
  charge: ChargeRecord,
): Promise<CobStatus | undefined> {
  if (scope.mode !== 'live' || !charge.txid) return undefined;
  const account = await getAccount(scope.accountId);
  const provider = account && liveAcquirerOf(account);
  if (!account || !provider) return undefined;
  const cob = await provider.getCob(charge.txid);
  if (cob.status !== 'CONCLUIDA') return cob.status;
  const received = Array.isArray(cob.raw.pix) ? (cob.raw.pix as { endToEndId?: unknown }[]) : [];
  // Paid, but the answer does not say by which Pix (`pix` is optional in the standard): nothing
  // can be settled from it, and the charge must be neither cancelled nor expired meanwhile.
  // Reconciliation (`GET /pix`) finds that Pix.
  if (!received.some((pix) => typeof pix.endToEndId === 'string'))
    throw new ProviderUnavailableError(`API Pix: cob ${charge.txid} is CONCLUIDA but lists no Pix`);
  for (const pix of received) {
    if (typeof pix.endToEndId !== 'string') continue;
    const outcome = await settlePixAt(account, provider, pix.endToEndId);
    log.info('acquirer Pix', { accountId: scope.accountId, endToEndId: pix.endToEndId, outcome, via: 'cob' });
  }
  return cob.status;
}

/**
 * Settles the Pix a live charge's cob shows before the charge is expired. `false` when the
 * acquirer could not be asked: the charge must not expire this run.
 */
export async function settleCobBeforeExpiry(
  scope: MerchantScope,
  chargeId: string,
  now: Date,
): Promise<boolean> {
  // A test charge has no cob to read: no read at all on the sandbox's expiry path.
  if (scope.mode !== 'live') return true;
  const charge = await getCharge(scope, chargeId);
  if (!charge) return true;
  try {
    await settleConcludedCob(scope, charge);
    return true;
  } catch (error) {
    // Unavailable, or refusing (credentials revoked, a cob it no longer knows): either way it
    // cannot say whether a Pix came, so the expiry waits. Past that, a Pix the acquirer shows
    // later is a late payment, returned like any other. Anything else is ours: it is thrown.
    if (!(error instanceof ProviderUnavailableError || error instanceof ProviderRefusal)) throw error;
    if (now.getTime() - Date.parse(charge.expiresAt) > MAX_EXPIRY_DEFERRAL_MS) return true;
    log.warn('cob not read before expiry; expiry deferred', { chargeId, ...errorFields(error) });
    return false;
  }
}
