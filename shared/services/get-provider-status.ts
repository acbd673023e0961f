/**
 * `GET /v1/payments/{id}/provider-status` (Part 2): the charge as the acquirer holds it, read
 * live (API Pix `GET /cob/{txid}`, never cached), beside the status the service shows. A
 * charge the acquirer refused never got a txid: it answers `TRANSACTION_HAS_NO_PROVIDER_REFERENCE`
 * without calling anyone. An acquirer that does not answer is 503.
 */

import { effectiveStatus } from '../domain/charges.ts';
import { NotFound, ProviderUnavailable, Unprocessable } from '../domain/errors.ts';
import type { MerchantScope } from '../domain/scope.ts';
import type { TxStatus } from '../domain/transaction-status.ts';
import { providerFor } from '../providers/index.ts';
import {
  acquirerRetryAfterSeconds,
  type CobStatus,
  ProviderRefusal,
  ProviderUnavailableError,
} from '../providers/provider.ts';
import { getAccount } from '../store/accounts.ts';
import { getCharge } from '../store/charges.ts';
import { listRefunds } from '../store/refunds.ts';

const NO_PROVIDER_REFERENCE = 'TRANSACTION_HAS_NO_PROVIDER_REFERENCE';

type ProviderStatus =
  | {
      localStatus: TxStatus;
      provider: string;
      providerTransactionId: string;
      providerStatus: CobStatus;
      rawResponse: Record<string, unknown>;
    }
  | {
      localStatus: TxStatus;
      provider: null;
      providerTransactionId: null;
      providerStatus: null;
      rawResponse: null;
      error: typeof NO_PROVIDER_REFERENCE;
    };

export async function getProviderStatus(
  scope: MerchantScope,
  chargeId: string,
  now: Date,
): Promise<ProviderStatus> {
  // The account fresh (not the minute-stale cache): whether the sandbox acquirer is down was
  // perhaps set a moment ago.
  const [charge, account] = await Promise.all([getCharge(scope, chargeId), getAccount(scope.accountId)]);
  if (!charge || !account) throw new NotFound('No such payment.');
  const localStatus = effectiveStatus(charge, now.getTime());
  const txid = charge.txid;
  if (txid === undefined)
    return {
      localStatus,
      provider: null,
      providerTransactionId: null,
      providerStatus: null,
      rawResponse: null,
      error: NO_PROVIDER_REFERENCE,
    };

  const provider = providerFor(scope.mode, account, {
    // What the sandbox holds for the txid: this charge and its refunds, read only if it asks.
    sandboxCobs: async (asked) =>
      asked === txid ? { charge, refunds: await listRefunds(scope, charge.id) } : undefined,
  });
  if (!provider || provider.name !== charge.provider)
    throw new Unprocessable(`The acquirer of this payment (${charge.provider}) is not configured.`);
  try {
    const cob = await provider.getCob(txid);
    return {
      localStatus,
      provider: provider.name,
      providerTransactionId: txid,
      providerStatus: cob.status,
      rawResponse: cob.raw,
    };
  } catch (error) {
    if (error instanceof ProviderUnavailableError)
      throw new ProviderUnavailable(
        'The acquirer is unavailable; retry later.',
        error,
        acquirerRetryAfterSeconds(error),
      );
    // Its credentials refused, or a cob it does not know: not the merchant's mistake, not ours.
    if (error instanceof ProviderRefusal)
      throw new ProviderUnavailable('The acquirer refused to show this charge; retry later.');
    throw error;
  }
}
