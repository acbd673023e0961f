/**
 * Every change of a charge after creation, each ONE transaction guarded by a condition on the
 * status it leaves: the charge, its ledger journal and wallet, the pending counter and the
 * outbox events commit together or not at all. A lost race fails the condition; the loser
 * re-reads and decides again (a Pix racing an expiry is either credited or returned, never both).
 */

import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type AccountSettings, computeFees } from '../domain/account-settings.ts';
import type { ChargeRecord, TxStatus } from '../domain/charges.ts';
import { eventsForTransition } from '../domain/events.ts';
import {
  type Journal,
  releaseJournal,
  returnJournal,
  reviewHoldJournal,
  settlementJournal,
} from '../domain/ledger.ts';
import { decideSettlement, type IncomingPix, type SettlementOutcome } from '../domain/settlement.ts';
import { log } from '../log.ts';
import type { PixProvider } from '../providers/provider.ts';
import { chargeItem, expiryShards, getCharge, pendingCounterChange } from './charges.ts';
import { db, queryAll, tableName, transactWrite } from './client.ts';
import { outboxItems } from './events.ts';
import { type MerchantScope, scopePk } from './keys.ts';
import { journalItems, type TransactItem } from './ledger.ts';

const RELEASE_SHARDS = ['DUE#RELEASE#0', 'DUE#RELEASE#1'];
const MAX_ATTEMPTS = 5;

const scopeOf = (charge: ChargeRecord): MerchantScope => ({ accountId: charge.accountId, mode: charge.mode });

/** The charge rewritten in its new state, only if it is still in `from` (and unexpired, if asked). */
function replaceCharge(
  next: ChargeRecord,
  from: TxStatus,
  options: { unexpiredAt?: string } = {},
): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: chargeItem(next),
      ConditionExpression: `#status = :from${options.unexpiredAt ? ' AND expiresAt > :at' : ''}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':from': from,
        ...(options.unexpiredAt && { ':at': options.unexpiredAt }),
      },
    },
  };
}

/** Moves a live charge to `next.status` with its journal and events; `false` if it was no longer in `from`. */
async function transition(
  previous: ChargeRecord,
  next: ChargeRecord,
  at: string,
  extra: TransactItem[],
  options: { unexpiredAt?: string } = {},
) {
  const scope = scopeOf(previous);
  const items = [
    replaceCharge(next, previous.status, options),
    pendingCounterChange(scope, -1),
    ...outboxItems(scope, eventsForTransition(next, previous.status, at)),
    ...extra,
  ];
  return transactWrite(items);
}

/** A Pix is processed once: its end-to-end id is recorded in the same transaction. */
const receiptOnce = (
  scope: MerchantScope,
  pix: IncomingPix,
  chargeId: string,
  outcome: SettlementOutcome,
): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      pk: `PIXIN#${pix.endToEndId}`,
      sk: 'PIXIN',
      type: 'pixReceipt',
      accountId: scope.accountId,
      mode: scope.mode,
      chargeId,
      amount: pix.amount,
      outcome:
        outcome.kind === 'credit' || outcome.kind === 'hold'
          ? outcome.kind
          : `${outcome.kind}:${outcome.reason}`,
      receivedAt: pix.receivedAt,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** The devolution record of a returned Pix (API Pix `PUT /pix/{e2eid}/devolucao/{id}`). */
function devolutionItem(
  scope: MerchantScope,
  chargeId: string,
  pix: IncomingPix,
  reason: string,
  at: string,
) {
  const returnId = `D${randomBytes(12).toString('hex')}`;
  const item: TransactItem = {
    Put: {
      TableName: tableName(),
      Item: {
        pk: scopePk(scope),
        sk: `DEVOLUTION#${chargeId}#${returnId}`,
        type: 'devolution',
        chargeId,
        returnId,
        endToEndId: pix.endToEndId,
        amount: pix.amount,
        reason,
        createdAt: at,
      },
    },
  };
  return { item, devolution: { endToEndId: pix.endToEndId, returnId, amount: pix.amount } };
}

export interface PixResult {
  outcome: SettlementOutcome;
  charge: ChargeRecord;
  /** `true` when this end-to-end id had already been processed (nothing changed). */
  duplicate: boolean;
}

/**
 * Settles a Pix received for a charge: credit, hold for review, refund to the payer (payer
 * lock), or return without changing the charge. Idempotent per end-to-end id.
 */
export async function receivePix(
  scope: MerchantScope,
  chargeId: string,
  pix: IncomingPix,
  settings: AccountSettings,
  provider: PixProvider,
): Promise<PixResult | undefined> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const charge = await getCharge(scope, chargeId);
    if (!charge) return undefined;
    const outcome = decideSettlement(charge, pix);
    const at = pix.receivedAt;
    const receipt = receiptOnce(scope, pix, chargeId, outcome);
    const payer = {
      ...(pix.payerDocument !== undefined && { document: pix.payerDocument }),
      ...(pix.payerName !== undefined && { name: pix.payerName }),
    };

    let committed: boolean;
    let next = charge;
    let devolution: ReturnType<typeof devolutionItem>['devolution'] | undefined;
    if (outcome.kind === 'return') {
      const back = devolutionItem(scope, chargeId, pix, outcome.reason, at);
      devolution = back.devolution;
      committed = await transactWrite([
        receipt,
        back.item,
        ...journalItems(scope, returnJournal(chargeId, charge.currency, pix.amount), at),
      ]);
    } else {
      const base = { ...charge, endToEndId: pix.endToEndId, payer, updatedAt: at };
      let journal: Journal;
      const extra: TransactItem[] = [receipt];
      if (outcome.kind === 'credit') {
        const fees = computeFees(charge.amount, settings.feePlan);
        const held = settings.settlementHoldDays > 0;
        next = { ...base, status: 'PAID', paidAt: at, fees };
        journal = settlementJournal(chargeId, charge.currency, charge.amount, fees, held);
        if (held)
          extra.push(
            trancheItem(scope, chargeId, charge.currency, fees.netAmount, at, settings.settlementHoldDays),
          );
      } else if (outcome.kind === 'hold') {
        next = { ...base, status: 'PROCESSING' };
        journal = reviewHoldJournal(chargeId, charge.currency, pix.amount);
      } else {
        next = { ...base, status: 'REFUNDED' };
        const back = devolutionItem(scope, chargeId, pix, outcome.reason, at);
        devolution = back.devolution;
        extra.push(back.item);
        journal = returnJournal(chargeId, charge.currency, pix.amount);
      }
      committed = await transition(charge, next, at, [...extra, ...journalItems(scope, journal, at)], {
        unexpiredAt: at,
      });
    }

    if (committed) {
      if (devolution) await provider.requestDevolution(devolution);
      return { outcome, charge: next, duplicate: false };
    }
    // Lost a race (the charge moved, or this Pix was already processed): read again and decide.
    const { Item } = await db.send(
      new GetCommand({
        TableName: tableName(),
        Key: { pk: `PIXIN#${pix.endToEndId}`, sk: 'PIXIN' },
        ConsistentRead: true,
      }),
    );
    if (Item) return { outcome, charge: (await getCharge(scope, chargeId)) ?? charge, duplicate: true };
  }
  throw new Error(`Could not settle Pix ${pix.endToEndId} after ${MAX_ATTEMPTS} attempts`);
}

/** A pending tranche released to `available` after the account's hold. */
function trancheItem(
  scope: MerchantScope,
  chargeId: string,
  currency: string,
  amount: number,
  at: string,
  holdDays: number,
): TransactItem {
  const releaseAt = new Date(Date.parse(at) + holdDays * 86_400_000).toISOString();
  return {
    Put: {
      TableName: tableName(),
      Item: {
        pk: scopePk(scope),
        sk: `TRANCHE#${releaseAt}#${chargeId}`,
        type: 'tranche',
        chargeId,
        currency,
        amount,
        releaseAt,
        gsi2pk: RELEASE_SHARDS[chargeId.charCodeAt(chargeId.length - 1) % RELEASE_SHARDS.length],
        gsi2sk: `${releaseAt}#${scope.accountId}#${scope.mode}#${chargeId}`,
      },
    },
  };
}

/**
 * pending → expired. `force` (sandbox "expire now") also expires a charge whose window is still
 * open, by moving its expiry to now. `false` when the charge was no longer pending.
 */
export async function expireCharge(
  scope: MerchantScope,
  chargeId: string,
  now: Date,
  force = false,
): Promise<ChargeRecord | undefined> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const charge = await getCharge(scope, chargeId);
    if (!charge || (charge.status !== 'WAITING_PAYMENT' && charge.status !== 'PENDING')) return undefined;
    const at = now.toISOString();
    if (!force && Date.parse(charge.expiresAt) > now.getTime()) return undefined;
    const expiresAt = force && Date.parse(charge.expiresAt) > now.getTime() ? at : charge.expiresAt;
    const ttlSeconds = Math.round((Date.parse(charge.expiresAt) - Date.parse(charge.createdAt)) / 1000);
    const next: ChargeRecord = {
      ...charge,
      status: 'EXPIRED',
      expiresAt,
      updatedAt: at,
      failure: { reason: 'The Pix charge expired unpaid', providerErrorCode: 'expired', ttlSeconds, at },
    };
    if (await transition(charge, next, at, [])) return next;
  }
  return undefined;
}

/** Scheduler: expires every charge whose window has closed. Returns how many it expired. */
export async function expireDueCharges(now: Date): Promise<number> {
  let expired = 0;
  for (const shard of expiryShards) {
    for (const item of await dueItems(shard, now)) {
      const [, accountId, mode, chargeId] = String(item.gsi2sk).split('#');
      if (!accountId || !chargeId || (mode !== 'live' && mode !== 'test')) continue;
      if (await expireCharge({ accountId, mode }, chargeId, now)) expired++;
    }
  }
  return expired;
}

/** Scheduler: moves every tranche whose hold is over from `pending` to `available`. */
export async function releaseDueTranches(now: Date): Promise<number> {
  let released = 0;
  for (const shard of RELEASE_SHARDS) {
    for (const item of await dueItems(shard, now)) {
      const scope: MerchantScope = {
        accountId: String(item.pk).split('#')[1] ?? '',
        mode: String(item.pk).endsWith('#live') ? 'live' : 'test',
      };
      const at = now.toISOString();
      const committed = await transactWrite([
        {
          Delete: {
            TableName: tableName(),
            Key: { pk: item.pk, sk: item.sk },
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        ...journalItems(
          scope,
          releaseJournal(String(item.chargeId), String(item.currency), Number(item.amount)),
          at,
        ),
      ]);
      if (committed) released++;
      else log.info('tranche already released', { chargeId: item.chargeId });
    }
  }
  return released;
}

const dueItems = (shard: string, now: Date) =>
  queryAll({
    TableName: tableName(),
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :shard AND gsi2sk <= :now',
    ExpressionAttributeValues: { ':shard': shard, ':now': `${now.toISOString()}#~` },
  });
