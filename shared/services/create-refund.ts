/**
 * Refunding a payment (`POST /v1/payments/{id}/refund`; README, "Refunds"). ONE transaction
 * writes the refund (PENDING), adds its amount to the charge's refunded total only while that
 * total stays within the amount (a condition DynamoDB checks on the committed value, so
 * concurrent refunds can never over-refund), reserves the amount (and the fee the merchant bears)
 * from the wallet's shards, each part only while its shard still holds it (`planDebit`: one
 * shard that covers it, else several in the same transaction), and stores the idempotency record
 * and the `payment.refunded` event. `insufficient_balance` only when the shards read right
 * before together do not cover it; a refund that keeps losing races for 5 s answers 429
 * `lock_timeout` (`Contended`), having written nothing. Then the acquirer is asked (advance-refund.ts). A replay returns the
 * original refund and finishes what a failure after the commit left undone.
 */

import { randomInt } from 'node:crypto';
import { requestFingerprint } from '../domain/charge-input.ts';
import type { ChargeRecord } from '../domain/charges.ts';
import { Contended, IdempotencyConflict, InvalidInput, NotFound, Unprocessable } from '../domain/errors.ts';
import { refundEvents } from '../domain/events.ts';
import { answersRefund, idempotencyLifetime } from '../domain/idempotency.ts';
import { type RefundBody, refundRequestOf } from '../domain/refund-input.ts';
import {
  assertRefundable,
  cashoutDestination,
  type RefundRecord,
  refundReserveJournal,
  serializeRefund,
} from '../domain/refunds.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { planDebit } from '../domain/shards.ts';
import { TRANSITIONS } from '../domain/transaction-status.ts';
import { PRIMARY_CURRENCY } from '../domain/wallets.ts';
import { newJournalId, newRefundId } from '../ids.ts';
import { log } from '../log.ts';
import { providerFor } from '../providers/index.ts';
import type { PixProvider } from '../providers/provider.ts';
import { getAccount } from '../store/accounts.ts';
import { getCharge, idempotencyItem, readIdempotencyRecord, type StoredResponse } from '../store/charges.ts';
import { type TransactResult, transactRetryingConflicts } from '../store/client.ts';
import { outboxItems } from '../store/events.ts';
import { journalItems } from '../store/ledger.ts';
import { chargeRefundTotalsChange, getRefund, newRefundItems } from '../store/refunds.ts';
import { readWalletShards } from '../store/wallets.ts';
import { faultRequested, injectFault } from '../testing/faults.ts';
import { requestRefund } from './advance-refund.ts';
import { eventContext } from './charge-transition.ts';

const REFUND_ROUTE = 'refundPayment';
/**
 * How long a refund keeps trying after lost races (many refunds of one merchant at once may
 * lose a few) before it answers 429 `lock_timeout` having written nothing: no attempt starts
 * later, so the commit and the acquirer's first answer still fit the API Lambda's 10 s.
 */
const WRITE_BUDGET_MS = 5_000;

interface CreateRefundResult extends StoredResponse {
  replayed: boolean;
}

/** `REFUND_NOT_SUPPORTED` (422): the acquirer cannot do this kind of refund. */
const notSupported = (message: string) =>
  new Unprocessable(message, { code: 'REFUND_NOT_SUPPORTED', param: 'strategy' });

export async function createRefund(request: {
  scope: MerchantScope;
  chargeId: string;
  body: RefundBody;
  rawBody: unknown;
  headers: Record<string, string>;
}): Promise<CreateRefundResult> {
  const scope: MerchantScope = { accountId: request.scope.accountId, mode: request.scope.mode };
  const { chargeId, body } = request;
  // The payment is part of the request: the same key on another payment is another request.
  const requestHash = requestFingerprint(REFUND_ROUTE, { id: chargeId, body: request.rawBody });
  const [stored, first, account, firstShards] = await Promise.all([
    readIdempotencyRecord(scope, REFUND_ROUTE, body.idempotencyKey),
    getCharge(scope, chargeId),
    getAccount(scope.accountId),
    // The payment's currency is almost always the primary one: read its shards in this round trip.
    readWalletShards(scope, PRIMARY_CURRENCY),
  ]);
  if (!first || !account) throw new NotFound('No such payment.');
  if (stored && answersRefund(stored, requestHash, Date.now()))
    return replay(scope, chargeId, stored, requestHash, request.headers);

  const provider = providerFor(scope.mode, account);
  if (!provider) throw notSupported('No acquirer is configured for this account in live mode.');
  const wanted = refundRequestOf(body, provider.payouts !== undefined);
  if (wanted.strategy === 'cashout' && !provider.payouts)
    throw notSupported('This acquirer offers no Pix-out: use strategy devolution.');

  let charge = first;
  let shards = firstShards;
  let shardsCurrency = PRIMARY_CURRENCY;
  const giveUpAt = Date.now() + WRITE_BUDGET_MS;
  while (Date.now() < giveUpAt) {
    const now = new Date();
    const at = now.toISOString();
    const amount = assertRefundable(charge, wanted, now.getTime());
    const cashout = wanted.strategy === 'cashout';
    const refund: RefundRecord = {
      id: newRefundId(now.getTime()),
      accountId: scope.accountId,
      mode: scope.mode,
      chargeId,
      amount,
      currency: charge.currency,
      status: 'PENDING',
      strategy: wanted.strategy,
      reason: wanted.reason ?? null,
      fee: cashout && wanted.passFeeToTenant ? account.settings.feePlan.cashoutFee : 0,
      ...(cashout ? cashoutDestination(charge, wanted) : { endToEndId: charge.endToEndId }),
      automatic: false,
      createdAt: at,
      updatedAt: at,
    };
    if (shardsCurrency !== charge.currency) {
      shards = await readWalletShards(scope, charge.currency);
      shardsCurrency = charge.currency;
    }
    const debits = planDebit(shards, amount + refund.fee, randomInt(1 << 16));
    if (!debits) throw insufficientBalance();
    const response = { status: 201, body: serializeRefund(refund) };
    const after = { ...charge, refundedAmount: (charge.refundedAmount ?? 0) + amount, updatedAt: at };
    const items = {
      refund: newRefundItems(refund, at),
      charge: chargeRefundTotalsChange(
        scope,
        chargeId,
        { refunded: amount, at },
        { from: TRANSITIONS.refundInFull.from, maxRefundedBefore: charge.amount - amount },
      ),
      wallet: journalItems(scope, refundReserveJournal(refund), at, newJournalId(), { debits }),
      idempotency: idempotencyItem(scope, {
        routeId: REFUND_ROUTE,
        key: body.idempotencyKey,
        record: { requestHash, response },
        chargeId,
        createdAt: at,
        lifetime: idempotencyLifetime(at),
      }),
      events: outboxItems(scope, refundEvents(after, charge.status, refund, eventContext(at))),
    };
    // Fault `refund-contended`: every attempt loses a shard to another writer.
    const lostRace: TransactResult<keyof typeof items> = {
      committed: false,
      failed: ['wallet'],
      current: {},
    };
    const result = faultRequested('refund-contended', request.headers)
      ? lostRace
      : await transactRetryingConflicts(items);
    if (result.committed) {
      injectFault('refund-after-write', request.headers);
      await askAcquirer(refund, request.headers, { provider, charge: after });
      return { ...response, replayed: false };
    }
    if (result.failed.includes('idempotency')) {
      const winner = await readIdempotencyRecord(scope, REFUND_ROUTE, body.idempotencyKey);
      if (winner) return replay(scope, chargeId, winner, requestHash, request.headers);
    }
    if (!result.failed.includes('charge') && !result.failed.includes('wallet'))
      throw new Error(`Refund transaction failed on ${result.failed.join(', ')}`);
    // The payment's status or refunded total moved, or a shard no longer holds its part: read
    // what moved again and decide again (the balance is refused only on a fresh read).
    [charge, shards] = await Promise.all([
      result.failed.includes('charge') ? getCharge(scope, chargeId).then((c) => c ?? charge) : charge,
      result.failed.includes('wallet') ? readWalletShards(scope, shardsCurrency) : shards,
    ]);
  }
  throw new Contended('Too many concurrent refunds of this account: retry with the same idempotencyKey.');
}

const insufficientBalance = () =>
  new InvalidInput('The available balance does not cover this refund.', {
    code: 'insufficient_balance',
    param: 'amount',
  });

/** The stored response of the same request; the refund it names is driven on if it stalled. */
async function replay(
  scope: MerchantScope,
  chargeId: string,
  stored: { requestHash: string; response: StoredResponse },
  requestHash: string,
  headers: Record<string, string>,
): Promise<CreateRefundResult> {
  if (stored.requestHash !== requestHash)
    throw new IdempotencyConflict(
      'This idempotencyKey was already used with a different refund request.',
      'idempotencyKey',
    );
  const refundId = (stored.response.body as { id?: string }).id;
  const refund = refundId === undefined ? undefined : await getRefund(scope, chargeId, refundId);
  if (refund) await askAcquirer(refund, headers);
  return { ...stored.response, replayed: true };
}

/**
 * Best effort right after the commit: the refund is already safe (reserved, PENDING, on the
 * scheduler's queue), so a failure here only delays it; the scheduler asks again.
 */
async function askAcquirer(
  refund: RefundRecord,
  headers: Record<string, string>,
  known: { provider?: PixProvider; charge?: ChargeRecord } = {},
): Promise<void> {
  try {
    await requestRefund(refund, { headers, ...known });
  } catch (error) {
    if ((error as { code?: string }).code === 'injected_fault') throw error;
    log.error('refund request failed; the scheduler will retry', {
      refundId: refund.id,
      error: String(error),
    });
  }
}
