/**
 * Creating a charge (Part 1; docs/architecture.md, "One request"): idempotent without an in-progress
 * state. One read gathers the idempotency record, the account and the live-charge counter; the
 * fraud/velocity guard runs before the acquirer is called; the acquirer call is itself
 * idempotent (the txid derives from account, mode, route, Idempotency-Key, its retention period and
 * the body's fingerprint, so another body never revises this one's cob); then ONE transaction
 * writes the charge with its ref and txid pointers, its idempotency record, the live-charge
 * counter shard, the customer guard (when a customer is named) and the outbox events. The loser of a
 * race, or a retry after a 5xx, replays the stored response; a loser with another body (409)
 * first withdraws the cob it made, which no charge names.
 */

import { randomInt } from 'node:crypto';
import type { AccountSettings } from '../domain/account-settings.ts';
import { buildDynamicBrCode } from '../domain/br-code.ts';
import { type CreateChargeBody, requestFingerprint, sanitizeMetadata } from '../domain/charge-input.ts';
import { type ChargeRecord, pixLocation, scopeOf, serializeCharge } from '../domain/charges.ts';
import { IdempotencyConflict, NotFound, ProviderUnavailable, Unprocessable } from '../domain/errors.ts';
import { transitionEvents } from '../domain/events.ts';
import { idempotencyLifetime, retained, retentionPeriodOf } from '../domain/idempotency.ts';
import { deriveTxid } from '../domain/pix-ids.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { liveCounterShards, shardsWithRoom, totalCount } from '../domain/shards.ts';
import { awaitingPayment, txStatuses } from '../domain/transaction-status.ts';
import {
  accountVelocityExceeded,
  assertCustomerWithinVelocity,
  assertWithinVelocity,
  type CustomerGuard,
  guardExpiresAt,
  liveCustomerChargeTimes,
  recentCreates,
  unconfirmedCreates,
  velocityCustomerOf,
} from '../domain/velocity.ts';
import { newChargeId } from '../ids.ts';
import { errorFields, log } from '../log.ts';
import { providerFor } from '../providers/index.ts';
import {
  acquirerNotServing,
  acquirerRetryAfterSeconds,
  type CreatedCob,
  type PixProvider,
  ProviderRejectedError,
} from '../providers/provider.ts';
import {
  chargeRefItem,
  chargeStates,
  customerCharges,
  customerGuardItem,
  type IdempotencyRecord,
  idempotencyItem,
  MAX_CUSTOMER_WINDOW_SECONDS,
  newChargeItem,
  pendingCounterChange,
  readCreateContext,
  readCustomerGuard,
  readIdempotencyRecord,
  readLiveCounters,
  type StoredResponse,
} from '../store/charges.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { outboxItems } from '../store/events.ts';
import { chargeTxidItem } from '../store/live-acquirer.ts';
import { qrPngBase64 } from '../store/qr-image.ts';
import { injectFault } from '../testing/faults.ts';
import { eventContext } from './charge-transition.ts';
import { expireOverdueCharges } from './expire-charge.ts';

/** Creates racing for the last room of the live-charge shards each lose at most this many times. */
const MAX_COUNTER_ATTEMPTS = 20;

export interface CreateChargeRequest {
  scope: MerchantScope;
  routeId: 'createCharge' | 'createPixCharge' | 'createPayment';
  idempotencyKey: string;
  /** Where the client sent the key (the 409's `param`): the header, or `POST /v1/payments`'s body field. */
  idempotencyKeyParam?: 'Idempotency-Key' | 'idempotencyKey';
  /** The body as sent (its fingerprint decides replay or conflict). */
  rawBody: unknown;
  input: CreateChargeBody;
  baseUrl: string;
  headers: Record<string, string>;
  /** What the 201 (and every replay) shows: the Charge, or the payment view of it. */
  serialize?: (charge: ChargeRecord, now: number) => unknown;
  /** Fields only a `POST /v1/payments` sets. */
  paymentFields?: Pick<ChargeRecord, 'paymentMethods' | 'customerId' | 'webhookUrl'>;
  /** The create's clock (the request's arrival by default). */
  now?: Date;
}

/** The create's response, and whether it is a replay of the stored one (same key and body). */
export interface CreateChargeResult extends StoredResponse {
  replayed: boolean;
}

function replay(record: IdempotencyRecord, requestHash: string, param: string): CreateChargeResult {
  if (record.requestHash !== requestHash)
    throw new IdempotencyConflict(`This ${param} was already used with a different request body.`, param);
  return { ...record.response, replayed: true };
}

export async function createCharge(request: CreateChargeRequest): Promise<CreateChargeResult> {
  const { input, idempotencyKey, routeId } = request;
  const keyParam = request.idempotencyKeyParam ?? 'Idempotency-Key';
  // Only the scope: a principal passed as one carries more fields.
  const scope: MerchantScope = { accountId: request.scope.accountId, mode: request.scope.mode };
  const requestHash = requestFingerprint(routeId, request.rawBody);
  const now = request.now ?? new Date();
  const customer = velocityCustomerOf({
    customer: input.customer,
    expectedPayerTaxId: input.expected_payer_tax_id,
  });
  // One round trip: the create context, in parallel with the customer's live charges.
  let [context, customerState] = await Promise.all([
    readCreateContext(scope, routeId, idempotencyKey),
    customer === undefined ? undefined : readCustomerState(scope, customer, now),
  ]);
  if (context.idempotency && retained(context.idempotency, now.getTime()))
    return replay(context.idempotency, requestHash, keyParam);
  const account = context.account;
  if (!account) throw new NotFound('No such account.');
  const { velocity, walletShards } = account.settings;
  let liveCounters = context.liveCounters;
  // At the limit: it may still count charges past their expiry that no scheduler run has reached.
  if (totalCount(liveCounters) >= velocity.accountMaxPending && (await expireOverdueCharges(scope, now)) > 0)
    liveCounters = await readLiveCounters(scope);
  assertWithinVelocity(velocity, customerState?.liveTimes ?? [], totalCount(liveCounters), now);

  const provider = providerFor(scope.mode, account);
  if (!provider)
    // About the account, not a field of the body: no `param`.
    throw new Unprocessable('No Pix provider is configured for this account in live mode.');
  const expiresIn = input.expires_in ?? account.settings.defaultExpiresIn;
  const txid = deriveTxid({
    ...scope,
    routeId,
    idempotencyKey,
    keyWindow: retentionPeriodOf(now.getTime()),
    requestHash,
  });
  const outcome = await requestCob(provider, input, txid, expiresIn, now);
  injectFault('after-provider', request.headers);

  const charge = await newChargeRecord(
    request,
    account.settings,
    provider.name,
    outcome,
    expiresIn,
    now,
  ).catch(async (error: unknown) => {
    // A cob no payer can pay (no code in the answer): withdrawn, as no charge will name it.
    if (error instanceof ProviderUnavailable && 'cob' in outcome) await withdrawUnusedCob(provider, txid);
    throw error;
  });
  const response = { status: 201, body: (request.serialize ?? serializeCharge)(charge, now.getTime()) };
  const record = { requestHash, response };
  // Every journal of the charge moves this wallet shard (random: settlements spread evenly).
  const walletShard = randomInt(walletShards);
  const counted = awaitingPayment(charge.status);
  // A refusal after the acquirer made a cob: the cob is withdrawn first, as no charge names it.
  const refuse = async (error: Error): Promise<never> => {
    if ('cob' in outcome) await withdrawUnusedCob(provider, txid);
    throw error;
  };
  for (let attempt = 0; ; attempt++) {
    // A live charge takes a counter shard with room; it is refused only when none has any.
    const room = shardsWithRoom(
      liveCounters,
      velocity.accountMaxPending,
      liveCounterShards(walletShards),
      randomInt(1 << 16),
    )[0];
    if (counted && !room) await refuse(accountVelocityExceeded());
    const placed: ChargeRecord = {
      ...charge,
      walletShard,
      ...(counted && room && { liveCounterShard: room.shard }),
    };
    const guard =
      counted && customer !== undefined && customerState
        ? { customer, read: customerState.guard, now }
        : undefined;
    const result = await transactRetryingConflicts(
      newChargeItems(placed, { routeId, idempotencyKey, record, counterBelow: room?.below, guard }),
    );
    if (result.committed) break;
    if (result.failed.includes('idempotency')) {
      const winner = await readIdempotencyRecord(scope, routeId, idempotencyKey);
      if (winner) {
        // Another body won the key: this cob's txid (derived from this body) is never used again.
        if (winner.requestHash !== requestHash && 'cob' in outcome) await withdrawUnusedCob(provider, txid);
        return replay(winner, requestHash, keyParam);
      }
    }
    const lostCounter = result.failed.includes('liveCounter');
    const lostGuard = result.failed.includes('customerGuard');
    if (!(lostCounter || lostGuard) || attempt >= MAX_COUNTER_ATTEMPTS)
      throw new Error(`Charge creation lost a race on ${result.failed.join(', ')}`);
    // The shard filled up since it was read: read every shard again and take another.
    if (lostCounter) liveCounters = await readLiveCounters(scope);
    // Another create of this customer committed since its guard was read: count again.
    if (lostGuard && customer !== undefined) {
      customerState = await readCustomerState(scope, customer, now);
      try {
        assertCustomerWithinVelocity(velocity, customerState.liveTimes, now);
      } catch (error) {
        await refuse(error as Error);
      }
    }
  }
  injectFault('after-write', request.headers);
  return { ...response, replayed: false };
}

/**
 * The customer's velocity guard and live charges' creation times (docs/data-model.md, "Customer
 * velocity"): the customer index over the longest window any account may set, read with the
 * guard; then, only for the guard's recent creates the index does not list as live, their charges.
 */
async function readCustomerState(
  scope: MerchantScope,
  customer: string,
  now: Date,
): Promise<{ guard: CustomerGuard; liveTimes: string[] }> {
  const [indexed, guard] = await Promise.all([
    customerCharges(scope, customer, {
      statuses: txStatuses.filter(awaitingPayment),
      sinceIso: new Date(now.getTime() - MAX_CUSTOMER_WINDOW_SECONDS * 1000).toISOString(),
      nowIso: now.toISOString(),
    }),
    readCustomerGuard(scope, customer),
  ]);
  const unconfirmed = unconfirmedCreates(recentCreates(guard.recent, now), indexed);
  const states = unconfirmed.length > 0 ? await chargeStates(scope, unconfirmed) : [];
  return { guard, liveTimes: liveCustomerChargeTimes(indexed, states, now) };
}

/**
 * The named items of a create: the charge, its scope pointer, the idempotency record (only if
 * the key is new), the charge's live-charge counter shard (only below that shard's share of the
 * account's limit, so concurrent creates cannot exceed it) and the creation's events.
 */
export function newChargeItems(
  charge: ChargeRecord,
  input: {
    routeId: string;
    idempotencyKey: string;
    record: Omit<IdempotencyRecord, 'createdAt'>;
    counterBelow?: number | undefined;
    /** A live charge of a customer: its guard as read, which this create moves on. */
    guard?: { customer: string; read: CustomerGuard; now: Date } | undefined;
  },
) {
  const scope = scopeOf(charge);
  const trigger = charge.status === 'REFUSED' ? 'refuse' : 'create';
  return {
    charge: newChargeItem(charge),
    ref: chargeRefItem(charge),
    // A live acquirer's Pix names only the txid: the callback and reconciliation find the charge by it.
    txidRef:
      charge.mode === 'live' && charge.txid !== undefined
        ? chargeTxidItem({ ...charge, txid: charge.txid })
        : undefined,
    idempotency: idempotencyItem(scope, {
      routeId: input.routeId,
      key: input.idempotencyKey,
      record: input.record,
      chargeId: charge.id,
      createdAt: charge.createdAt,
      lifetime: idempotencyLifetime(charge.createdAt),
    }),
    liveCounter: awaitingPayment(charge.status)
      ? pendingCounterChange(scope, +1, { shard: charge.liveCounterShard, below: input.counterBelow })
      : undefined,
    customerGuard: input.guard && customerGuardChange(scope, input.guard, charge),
    events: outboxItems(scope, transitionEvents(trigger, charge, null, eventContext(charge.createdAt))),
  };
}

/** The customer's guard with this create added to its recent creates. */
function customerGuardChange(
  scope: MerchantScope,
  guard: { customer: string; read: CustomerGuard; now: Date },
  charge: ChargeRecord,
) {
  const recent = { ...recentCreates(guard.read.recent, guard.now), [charge.id]: charge.createdAt };
  return customerGuardItem(scope, guard.customer, guard.read, recent, guardExpiresAt(recent));
}

type CobOutcome = { cob: CreatedCob } | { failure: NonNullable<ChargeRecord['failure']> };

/** `PUT /cob/{txid}` at the acquirer: unavailable → 503 (nothing stored); refused → a failed charge. */
async function requestCob(
  provider: PixProvider,
  input: CreateChargeBody,
  txid: string,
  expiresIn: number,
  now: Date,
): Promise<CobOutcome> {
  try {
    return {
      cob: await provider.createCob({
        txid,
        amount: input.amount,
        expiresIn,
        ...(input.expected_payer_tax_id !== undefined && { payerDocument: input.expected_payer_tax_id }),
        ...(input.customer.name !== undefined && { payerName: input.customer.name }),
        ...(input.description !== undefined && { description: input.description }),
      }),
    };
  } catch (error) {
    // Nothing was created: the same key succeeds later.
    if (acquirerNotServing(error))
      throw new ProviderUnavailable(undefined, error, acquirerRetryAfterSeconds(error));
    if (!(error instanceof ProviderRejectedError)) throw error;
    return {
      failure: { reason: error.message, providerErrorCode: error.providerErrorCode, at: now.toISOString() },
    };
  }
}

const earliest = (iso: string, other: string | undefined): string =>
  other !== undefined && other < iso ? other : iso;

/** The stored charge; with its BR Code and QR when the acquirer accepted it. */
async function newChargeRecord(
  request: CreateChargeRequest,
  settings: AccountSettings,
  providerName: string,
  outcome: CobOutcome,
  expiresIn: number,
  now: Date,
): Promise<ChargeRecord> {
  const { input, scope } = request;
  const at = now.toISOString();
  const id = newChargeId(now.getTime());
  const charge: ChargeRecord = {
    id,
    accountId: scope.accountId,
    mode: scope.mode,
    amount: input.amount,
    currency: input.currency,
    status: 'cob' in outcome ? 'WAITING_PAYMENT' : 'REFUSED',
    paymentMethod: 'pix',
    customer: input.customer,
    metadata: sanitizeMetadata(input.metadata, input.description),
    ...(input.expected_payer_tax_id !== undefined && { expectedPayerTaxId: input.expected_payer_tax_id }),
    idempotencyKey: request.idempotencyKey,
    baseUrl: request.baseUrl,
    provider: providerName,
    // The acquirer's own expiry when it says one (a retried create gets the first attempt's cob),
    // never later than this create's window.
    expiresAt: earliest(
      new Date(now.getTime() + expiresIn * 1000).toISOString(),
      'cob' in outcome ? outcome.cob.expiresAt : undefined,
    ),
    createdAt: at,
    updatedAt: at,
    ...('failure' in outcome && { failure: outcome.failure }),
    ...request.paymentFields,
  };
  if ('cob' in outcome) {
    charge.txid = outcome.cob.txid;
    charge.brCode = brCodeOf(
      outcome.cob,
      providerName,
      settings,
      pixLocation(request.baseUrl, id),
      input.amount,
    );
    charge.qrCodeBase64 = await qrPngBase64(charge.brCode);
  }
  return charge;
}

/**
 * Withdraws a cob no charge names (nobody was shown its code; it would otherwise stay ATIVA at
 * the acquirer until it expires). Best effort: a failure is logged, and the cob expires anyway.
 */
async function withdrawUnusedCob(provider: PixProvider, txid: string): Promise<void> {
  try {
    await provider.cancelCob(txid);
  } catch (error) {
    log.warn('unused cob not withdrawn; it expires at the acquirer', { txid, ...errorFields(error) });
  }
}

/**
 * A live PSP's copy-and-paste code; else a dynamic code pointing at the PSP's payload location
 * (`pixCopiaECola` is optional in CobGerada, `location` is where the payer's app fetches the
 * cob); the sandbox's location is ours. A live cob with neither cannot be paid: upstream error.
 */
function brCodeOf(
  cob: CreatedCob,
  providerName: string,
  settings: AccountSettings,
  ownLocation: string,
  amount: number,
): string {
  if (cob.pixCopiaECola !== undefined) return cob.pixCopiaECola;
  const location = providerName === 'sandbox' ? ownLocation : cob.location?.replace(/^https?:\/\//, '');
  try {
    if (location === undefined) throw new RangeError('no pixCopiaECola nor location');
    return buildDynamicBrCode({
      locationUrl: location,
      merchantName: settings.merchantName,
      merchantCity: settings.merchantCity,
      mcc: settings.mcc,
      amount,
    });
  } catch (error) {
    if (!(error instanceof RangeError) || providerName === 'sandbox') throw error;
    log.error('acquirer answered a cob no payer can pay', { txid: cob.txid, error: error.message });
    throw new ProviderUnavailable('The acquirer answered without a usable payment code; retry later.');
  }
}
