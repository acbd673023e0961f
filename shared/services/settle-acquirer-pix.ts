/**
 * A Pix a live acquirer reported (its callback, or reconciliation's `GET /pix`) settled through
 * the same use case as the sandbox's (`receive-pix.ts`: payer lock, underpayment, late payment,
 * once per end-to-end id). The callback's body is never trusted: the Pix is read back with
 * `GET /pix/{e2eid}` at the account's acquirer, so a forged end-to-end id changes nothing. Its
 * devolutions, once final there, advance the refunds they belong to.
 */

import type { Account } from '../domain/account-settings.ts';
import type { ChargeRecord } from '../domain/charges.ts';
import { isFinalRefund, refundIdOfDevolution } from '../domain/refunds.ts';
import type { MerchantScope } from '../domain/scope.ts';
import type { IncomingPix } from '../domain/settlement.ts';
import { log } from '../log.ts';
import { countMetric } from '../metrics.ts';
import { providerFor } from '../providers/index.ts';
import {
  type PixProvider,
  ProviderNotFoundError,
  ProviderRefusal,
  type ReceivedPix,
} from '../providers/provider.ts';
import { observability } from '../resources.ts';
import { getAccount } from '../store/accounts.ts';
import { getCharge } from '../store/charges.ts';
import { chargeIdOfTxid, chargeOfPix } from '../store/live-acquirer.ts';
import { findRefund } from '../store/refunds.ts';
import { settleRefund } from './advance-refund.ts';
import { receivePix } from './receive-pix.ts';

type AcquirerPixOutcome =
  | 'settled'
  | 'duplicate'
  /** The acquirer has no such Pix (a forged callback), or it names no charge of ours. */
  | 'ignored';

/** How far around the Pix the payer-lock query looks (the standard requires a period). */
const PAYER_QUERY_MARGIN_MS = 60 * 60_000;

/** An acquirer that reads its Pix back. */
type LiveAcquirer = Required<Pick<PixProvider, 'getPix' | 'listPix'>> & PixProvider;

/** The live acquirer of an account, if it has one that can read Pix back. */
export function liveAcquirerOf(account: Account): LiveAcquirer | undefined {
  const provider = providerFor('live', account);
  return provider?.getPix && provider.listPix ? (provider as LiveAcquirer) : undefined;
}

/**
 * Settles the Pix `endToEndId` of the account's acquirer (the callback consumer's entry: it knows
 * only the account's id). Throws when the acquirer cannot be reached (retry later).
 */
export async function settleAcquirerPix(accountId: string, endToEndId: string): Promise<AcquirerPixOutcome> {
  const account = await getAccount(accountId);
  const provider = account && liveAcquirerOf(account);
  if (!account || !provider) {
    log.warn('acquirer Pix for an account without a live acquirer', { accountId });
    return 'ignored';
  }
  return settlePixAt(account, provider, endToEndId);
}

/**
 * Settles the Pix `endToEndId` of `provider`, the account's acquirer, read there first unless
 * `known` is what that acquirer itself just listed (reconciliation, which has the account already).
 */
export async function settlePixAt(
  account: Account,
  provider: LiveAcquirer,
  endToEndId: string,
  known?: ReceivedPix,
): Promise<AcquirerPixOutcome> {
  const accountId = account.id;
  let pix: ReceivedPix;
  try {
    pix = known ?? (await provider.getPix(endToEndId));
  } catch (error) {
    if (!(error instanceof ProviderNotFoundError)) throw error;
    log.warn('acquirer callback names a Pix the acquirer does not have', { accountId, endToEndId });
    return 'ignored';
  }
  const scope: MerchantScope = { accountId, mode: 'live' };
  // Already processed (a replay, or reconciliation's overlapping periods): only its devolutions may have moved.
  if (await chargeOfPix(pix.endToEndId)) {
    await advanceDevolutions(scope, pix);
    return 'duplicate';
  }
  const chargeId = pix.txid === undefined ? undefined : await chargeIdOfTxid(scope, pix.txid);
  const charge = chargeId === undefined ? undefined : await getCharge(scope, chargeId);
  if (!charge || !chargeId) {
    log.warn('acquirer Pix names no charge of ours', { accountId, endToEndId: pix.endToEndId });
    return 'ignored';
  }
  const incoming: IncomingPix = {
    endToEndId: pix.endToEndId,
    amount: pix.amount,
    receivedAt: pix.receivedAt,
    ...(await payerOf(provider, charge, pix)),
  };
  const result = await receivePix(scope, chargeId, incoming, account.settings, provider);
  await advanceDevolutions(scope, pix);
  return result?.duplicate ? 'duplicate' : 'settled';
}

/**
 * The payer lock in live mode: the standard's `Pix` names no payer, so the acquirer is asked
 * which Pix the expected payer sent for this txid (`GET /pix?cpf|cnpj=…&txid=…`). Listed: the
 * expected payer paid (credited). Not listed: another payer did, and the Pix is returned by
 * devolution as Part 1 says. A PSP that refuses the filter cannot tell: nothing is reported, so
 * the charge is held for review, as for a bank that did not report the payer.
 */
async function payerOf(
  provider: Required<Pick<PixProvider, 'listPix'>>,
  charge: ChargeRecord,
  pix: ReceivedPix,
): Promise<Pick<IncomingPix, 'payerDocument' | 'expectedPayerPaid'>> {
  const expected = charge.expectedPayerTaxId;
  if (expected === undefined || pix.txid === undefined) return {};
  const at = Date.parse(pix.receivedAt);
  try {
    const sent = await provider.listPix({
      from: new Date(at - PAYER_QUERY_MARGIN_MS),
      to: new Date(at + PAYER_QUERY_MARGIN_MS),
      payerDocument: expected,
      txid: pix.txid,
    });
    return sent.some((p) => p.endToEndId === pix.endToEndId)
      ? { payerDocument: expected }
      : { expectedPayerPaid: false };
  } catch (error) {
    if (!(error instanceof ProviderRefusal)) throw error;
    log.warn('acquirer cannot filter Pix by payer: held for review', { chargeId: charge.id });
    return {};
  }
}

/** A devolution final at the acquirer (as read there) ends the refund it belongs to. */
async function advanceDevolutions(scope: MerchantScope, pix: ReceivedPix): Promise<void> {
  for (const devolution of pix.devolutions) {
    if (devolution.status === 'EM_PROCESSAMENTO') continue;
    const refundId = refundIdOfDevolution(devolution.returnId);
    const refund = refundId === undefined ? undefined : await findRefund(scope, refundId);
    if (!refund || refund.endToEndId !== pix.endToEndId) continue;
    if (refund.status === 'FAILED' && devolution.status === 'DEVOLVIDO') {
      // The money left although the refund failed and its reserve went back to `available`:
      // nothing here can undo that, so ops must (metric and error, once per report of it).
      log.error('acquirer returned the money of a FAILED refund', {
        refundId: refund.id,
        chargeId: refund.chargeId,
        endToEndId: pix.endToEndId,
        amount: refund.amount,
      });
      countMetric(
        scope.mode,
        { [observability.metrics.refundsReturnedAfterFailure]: 1 },
        { accountIds: scope.accountId },
      );
      continue;
    }
    if (isFinalRefund(refund.status)) continue;
    if (devolution.status === 'DEVOLVIDO') await settleRefund(refund, 'confirm');
    else if (devolution.status === 'NAO_REALIZADO')
      await settleRefund(refund, 'fail', devolution.reason ?? 'The acquirer could not return the money');
    // A status the standard may add later (its enums grow): not final as far as we know, so the
    // refund waits for the scheduler's next read rather than give back a reserve whose money may leave.
    else
      log.warn('unknown devolution status: the refund waits', {
        refundId: refund.id,
        status: devolution.status,
      });
  }
}
