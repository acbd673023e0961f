/**
 * The single table's key schema: every entity's key builders and parsers, and the sort-key
 * prefixes queries use with `begins_with`. No other module writes a key literal; see
 * docs/data-model.md for why each key is shaped the way it is.
 *
 * Merchant data is partitioned by account AND mode (`ACCOUNT#<id>#<mode>`): a test key never
 * sees live data and vice versa (as with Stripe's test mode); its time-ordered items are spread
 * over the scope's partitions `ACCOUNT#<id>#<mode>#<k>` (`scopeItemPk`). Account-level data (profile,
 * members, API keys, audit) lives in `ACCOUNT#<id>`. Items addressed without a scope (an API key
 * by its hash, a charge by its raw id, a Pix by its end-to-end id) get a partition of their own.
 */

import { chargeIdFloor } from '../domain/pix-ids.ts';
import type { MerchantScope, Mode } from '../domain/scope.ts';
import { SCOPE_PARTITIONS, scopePartitionOf } from '../domain/scope-partitions.ts';
import {
  evidenceBucket,
  loginAttemptsKeyPrefix,
  rateLimitKeyPrefix,
  revokedJwtKeyPrefix,
  userKeyPrefix,
} from '../resources.ts';

export type { MerchantScope } from '../domain/scope.ts';

export interface ItemKey {
  pk: string;
  sk: string;
}

/** Sort-key prefixes of the entities a query lists (`begins_with(sk, :prefix)`). */
export const PREFIX = {
  apiKey: 'APIKEY#',
  audit: 'AUDIT#',
  member: 'MEMBER#',
  charge: 'CHARGE#',
  refund: 'REFUND#',
  tranche: 'TRANCHE#',
  wallet: 'WALLET#',
  pendingCounter: 'COUNTER#PENDING_CHARGES',
  journal: 'LEDGER#',
  event: 'EVENT#',
  webhookEndpoint: 'WEBHOOKEP#',
  delivery: 'DELIVERY#',
  deliveryCount: 'DELIVERYCOUNT#',
  paymentCount: 'PAYCOUNT#',
  paymentDay: 'PAYDAY#',
  medCase: 'MEDCASE#',
  medEvidence: 'MEDEVIDENCE#',
} as const;

// ── Partitions ────────────────────────────────────────────────────────────────────────────────

export const accountPk = (accountId: string): string => `ACCOUNT#${accountId}`;
export const scopePk = ({ accountId, mode }: MerchantScope): string => `ACCOUNT#${accountId}#${mode}`;

/**
 * One of the partitions of a scope's time-ordered, append-only items (`ACCOUNT#<id>#<mode>#<k>`:
 * charges, events, journals, tranches, refunds, deliveries, MED cases and evidence): k is a hash
 * of the item's own id (`scopePartitionOf`), so a read by id computes it and a merchant's inserts
 * spread over `SCOPE_PARTITIONS` keys instead of all landing at the newest end of one
 * (docs/scale.md). Lists read every partition and merge by sort key.
 */
export const scopePartitionPk = (scope: MerchantScope, partition: number): string =>
  `${scopePk(scope)}#${partition}`;
/** The partition of the scope's item whose own id is `id`. */
const scopeItemPk = (scope: MerchantScope, id: string): string =>
  scopePartitionPk(scope, scopePartitionOf(id));
/** Every partition of the scope's time-ordered items, in order of k. */
export const scopePartitionPks = (scope: MerchantScope): string[] =>
  Array.from({ length: SCOPE_PARTITIONS }, (_, k) => scopePartitionPk(scope, k));

/** The merchant scope of a scope partition key (`ACCOUNT#<id>#<mode>`, or one of its `#<k>`). */
export function parseScope(pk: string): MerchantScope {
  const [tag, accountId, mode, ...rest] = pk.split('#');
  if (
    tag !== 'ACCOUNT' ||
    !accountId ||
    (mode !== 'live' && mode !== 'test') ||
    rest.length > 1 ||
    (rest.length === 1 && !/^\d+$/.test(rest[0] as string))
  )
    throw new Error(`Not a merchant scope key: ${pk}`);
  return { accountId, mode };
}
/** The k of a scope partition key (`undefined`: the scope's own partition, `ACCOUNT#<id>#<mode>`). */
export function parseScopePartition(pk: string): number | undefined {
  parseScope(pk);
  const k = pk.split('#')[3];
  return k === undefined ? undefined : Number(k);
}

// ── Accounts, users, sessions, API keys, rate limits ──────────────────────────────────────────

export const accountKey = (accountId: string): ItemKey => ({ pk: accountPk(accountId), sk: 'ACCOUNT' });
/** The account a provider callback URL belongs to, by the SHA-256 of its token (written by store/accounts.ts, read by services/accept-provider-callback.ts). */
export const providerCallbackKey = (tokenHash: string): ItemKey => ({
  pk: `PROVIDERCALLBACK#${tokenHash}`,
  sk: 'PROVIDERCALLBACK',
});
/** `email` already normalised (users.ts). */
export const userKey = (email: string): ItemKey => ({ pk: `${userKeyPrefix}${email}`, sk: 'USER' });
export const membershipKey = (accountId: string, userId: string): ItemKey => ({
  pk: accountPk(accountId),
  sk: `${PREFIX.member}${userId}`,
});
/** GSI1 partition of a user's memberships (user → accounts). */
export const userMembershipsIndexPk = (userId: string): string => `USER#${userId}`;
export const revokedJwtKey = (jti: string): ItemKey => ({ pk: `${revokedJwtKeyPrefix}${jti}`, sk: 'JWT' });
export const apiKeyKey = (accountId: string, keyId: string): ItemKey => ({
  pk: accountPk(accountId),
  sk: `${PREFIX.apiKey}${keyId}`,
});
export const apiKeyHashKey = (hash: string): ItemKey => ({ pk: `APIKEYHASH#${hash}`, sk: 'APIKEY' });
export const auditKey = (accountId: string, at: string, id: string): ItemKey => ({
  pk: accountPk(accountId),
  sk: `${PREFIX.audit}${at}#${id}`,
});
/** `RATE#…`: the only partitions `wallets` may write (IAM `dynamodb:LeadingKeys`, `prefixedWrites`). */
export const rateWindowKey = (keyId: string, minute: number): ItemKey => ({
  pk: `${rateLimitKeyPrefix}${keyId}#${minute}`,
  sk: 'RATE',
});

/**
 * One e-mail address's login items share a partition, keyed by the keyed hash of the normalised
 * address (`loginLimitSubject`): never the address itself. Its own prefix, which `auth` may
 * write, as it may logged-out tokens and (update only) a user's password hash (`prefixedWrites`).
 */
const loginPk = (emailHash: string) => `${loginAttemptsKeyPrefix}${emailHash}`;

/** The failed-login counter of one e-mail address, all sources together. */
export const loginAttemptsKey = (emailHash: string): ItemKey => ({
  pk: loginPk(emailHash),
  sk: 'LOGINATTEMPTS',
});

/** The failed-login counter of one e-mail address from one source (`loginSourceSubject`). */
export const loginSourceAttemptsKey = (emailHash: string, sourceHash: string): ItemKey => ({
  pk: loginPk(emailHash),
  sk: `LOGINATTEMPTS#${sourceHash}`,
});

/**
 * The failed-login counter of one source (`loginSourceSubject`), every address together: its own
 * partition under the same prefix (a source hash is hex, so never `SOURCE#…`).
 */
export const loginSourceAnyAddressKey = (sourceHash: string): ItemKey => ({
  pk: `${loginAttemptsKeyPrefix}SOURCE#${sourceHash}`,
  sk: 'LOGINATTEMPTS',
});

/** A source the address logged in from: past the address's limit it keeps its own limit. */
export const loginKnownSourceKey = (emailHash: string, sourceHash: string): ItemKey => ({
  pk: loginPk(emailHash),
  sk: `LOGINKNOWN#${sourceHash}`,
});

// ── Charges ───────────────────────────────────────────────────────────────────────────────────

/** Raw ids start with the creation time, so the sort key orders a scope's charges by creation. */
export const chargeKey = (scope: MerchantScope, rawId: string): ItemKey => ({
  pk: scopeItemPk(scope, rawId),
  sk: `${PREFIX.charge}${rawId}`,
});
/** Which scope a raw id belongs to (public checkout and Pix location URLs carry only the raw id). */
export const chargeRefKey = (rawId: string): ItemKey => ({ pk: `CHARGEREF#${rawId}`, sk: 'CHARGEREF' });
/**
 * The scope's live-charge counter, split in shards (`COUNTER#PENDING_CHARGES#<shard>`) so
 * concurrent creates and settlements of one merchant do not all write one item; a charge
 * records its shard (`liveCounterShard`). Without a shard: the one counter of charges created
 * before sharding. One `begins_with` query reads them all, whatever shards exist.
 */
export const pendingCounterKey = (scope: MerchantScope, shard?: number): ItemKey => ({
  pk: scopePk(scope),
  sk: shard === undefined ? PREFIX.pendingCounter : `${PREFIX.pendingCounter}#${shard}`,
});
export const idempotencyKey = (scope: MerchantScope, routeId: string, key: string): ItemKey => ({
  pk: `IDEMPOTENCY#${scope.accountId}#${scope.mode}#${routeId}#${key}`,
  sk: 'IDEMPOTENCY',
});
/** A customer's velocity guard: its recent creates, the item concurrent creates serialise on. */
export const customerGuardKey = (scope: MerchantScope, customer: string): ItemKey => ({
  pk: `CUSTOMERGUARD#${scope.accountId}#${scope.mode}#${customer}`,
  sk: 'CUSTOMERGUARD',
});
/** GSI1 partition of a customer document's charges (the customer velocity guard). */
export const customerIndexPk = (scope: MerchantScope, document: string): string =>
  `CUSTOMER#${scope.accountId}#${scope.mode}#${document}`;
/** A Pix is processed once: its receipt is keyed by its end-to-end id alone. */
export const pixReceiptKey = (endToEndId: string): ItemKey => ({ pk: `PIXIN#${endToEndId}`, sk: 'PIXIN' });
/** A charge's refunds live in the charge's own partition. */
export const chargeRefundsPk = (scope: MerchantScope, chargeId: string): string =>
  scopeItemPk(scope, chargeId);
/** A transaction's refunds, newest last by id (`re_<UUIDv7>`), under the charge's raw id (and in its partition). */
export const refundKey = (scope: MerchantScope, chargeId: string, refundId: string): ItemKey => ({
  pk: chargeRefundsPk(scope, chargeId),
  sk: `${PREFIX.refund}${chargeId}#${refundId}`,
});
/** The prefix of one transaction's refunds. */
export const chargeRefundsPrefix = (chargeId: string): string => `${PREFIX.refund}${chargeId}#`;
/** Which charge a refund id belongs to (the sandbox routes address a refund by its id alone). */
export const refundRefKey = (scope: MerchantScope, refundId: string): ItemKey => ({
  pk: scopeItemPk(scope, refundId),
  sk: `REFUNDREF#${refundId}`,
});

/**
 * The sort-key range (for `BETWEEN`) of a scope's charges created within `[fromMs, toMs)`
 * (either side open): raw ids start with the creation time (`chargeIdFloor`), and no id equals
 * a floor, so the range holds exactly the charges of that span.
 */
export function chargeSkRange(span: { fromMs?: number; toMs?: number }): { from: string; to: string } {
  const ids = chargeIdRange(span);
  return { from: `${PREFIX.charge}${ids.from}`, to: `${PREFIX.charge}${ids.to}` };
}
/** The same range over raw ids alone (the status cells' sort key). */
export function chargeIdRange(span: { fromMs?: number; toMs?: number }): { from: string; to: string } {
  return {
    from: chargeIdFloor(span.fromMs ?? 0),
    // 'g' sorts after every hex digit: the end of the ids.
    to: span.toMs === undefined ? 'g' : chargeIdFloor(span.toMs),
  };
}

/**
 * GSI3 of a charge: its stored status's cell, `PAYSTATUS#<acct>#<mode>#<status>#<k>` / `<rawId>`
 * (k: the charge's scope partition), so a status filter of the payment list reads only its
 * matches, in creation order, merging the cell's partitions. The partition key moves with the
 * status (every write of the charge rewrites it).
 */
const paymentStatusCellPartitionPk = (scope: MerchantScope, status: string, partition: number): string =>
  `PAYSTATUS#${scope.accountId}#${scope.mode}#${status}#${partition}`;
/** Every partition of a status cell, in order of k. */
export const paymentStatusCellPks = (scope: MerchantScope, status: string): string[] =>
  Array.from({ length: SCOPE_PARTITIONS }, (_, k) => paymentStatusCellPartitionPk(scope, status, k));
export const paymentStatusCell = (scope: MerchantScope, status: string, rawId: string) => ({
  gsi3pk: paymentStatusCellPartitionPk(scope, status, scopePartitionOf(rawId)),
  gsi3sk: rawId,
});

/**
 * Payment counters, in the scope's partition: one item per bucket of creation time and level
 * (`PAYCOUNT#MINUTE#2026-05-01T13:45`, `…#HOUR#2026-05-01T13`, `…#DAY#2026-05-01`,
 * `…#MONTH#2026-05`), each with `total` and one count per stored status. Labels sort by time.
 */
export const paymentCountKey = (scope: MerchantScope, level: string, label: string): ItemKey => ({
  pk: scopePk(scope),
  sk: `${PREFIX.paymentCount}${level}#${label}`,
});
/** The sort keys of a run of one level's buckets, labels inclusive (absent: open on that side). */
export function paymentCountRange(level: string, from?: string, to?: string): { from: string; to: string } {
  const prefix = `${PREFIX.paymentCount}${level}#`;
  return { from: `${prefix}${from ?? ''}`, to: to === undefined ? prefixEnd(prefix) : `${prefix}${to}` };
}

/**
 * Per-day payment aggregates (stats and metrics), in the scope's partition: per São Paulo
 * calendar day, currency and method, split in shards (`PAYDAY#2026-11-20#BRL#PIX#<shard>`) so a
 * busy merchant's stream batches do not all write one item; a window of days is one `BETWEEN`
 * over the dates that reads every shard, O(days × shards) items whatever the number of payments.
 */
export const paymentDayKey = (
  scope: MerchantScope,
  date: string,
  currency: string,
  method: string,
  shard: number,
): ItemKey => ({
  pk: scopePk(scope),
  sk: `${PREFIX.paymentDay}${date}#${currency}#${method}#${shard}`,
});
/** The sort keys of the day items from `fromDate` to `toDate` (`YYYY-MM-DD`, inclusive), every shard. */
export const paymentDayRange = (fromDate: string, toDate: string): { from: string; to: string } => ({
  from: `${PREFIX.paymentDay}${fromDate}#`,
  to: prefixEnd(`${PREFIX.paymentDay}${toDate}#`),
});
/** The date, currency and method of a day item's sort key (whichever its shard). */
export function parsePaymentDaySk(sk: string): { date: string; currency: string; method: string } {
  const [date = '', currency = '', method = ''] = sk.slice(PREFIX.paymentDay.length).split('#');
  return { date, currency, method };
}

// ── Due-work queues (GSI2, sparse): charges to expire, tranches to release, refunds to advance,
//    MED cases awaiting an operations review ───────────────────────────────────────────────────

const EXPIRY_SHARDS = 4;
const RELEASE_SHARDS = 2;
export type DueQueue = 'EXPIRY' | 'RELEASE' | 'REFUND' | 'MEDREVIEW' | 'RECONCILE';
/** Every shard of a due queue (the scheduler drains them all). */
export const dueShards = (queue: DueQueue): string[] =>
  Array.from({ length: queue === 'EXPIRY' ? EXPIRY_SHARDS : RELEASE_SHARDS }, (_, i) => `DUE#${queue}#${i}`);

/**
 * The GSI2 attributes that put an item on a due queue at `dueAt`; the shard spreads writes, the
 * sort key carries the scope and id so the scheduler needs nothing else. `shardSeed` is any
 * number (the writer's choice: random or derived from the id).
 */
export function dueIndex(
  queue: DueQueue,
  dueAt: string,
  scope: MerchantScope,
  id: string,
  shardSeed: number,
) {
  const shards = dueShards(queue);
  return {
    gsi2pk: shards[Math.abs(shardSeed) % shards.length] as string,
    gsi2sk: `${dueAt}#${scope.accountId}#${scope.mode}#${id}`,
  };
}

/** Upper bound of the due entries at `nowIso` (`gsi2sk <= …`). */
export const dueUpTo = (nowIso: string): string => `${nowIso}#~`;

/** The scope and id of a due entry's sort key. */
export function parseDueEntry(gsi2sk: string): { scope: MerchantScope; id: string } {
  const [, accountId, mode, id] = gsi2sk.split('#');
  if (!accountId || !id || (mode !== 'live' && mode !== 'test'))
    throw new Error(`Not a due entry: ${gsi2sk}`);
  return { scope: { accountId, mode: mode as Mode }, id };
}

// ── Live acquirer (API Pix): charges by txid, reconciliation cursors ──────────────────────────

/** Which charge a txid is (a Pix read at the PSP names only its txid); written with a live charge. */
export const chargeTxidKey = (scope: MerchantScope, txid: string): ItemKey => ({
  pk: `CHARGETXID#${scope.accountId}#${scope.mode}#${txid}`,
  sk: 'CHARGETXID',
});
/** What the service did about an acquirer's infraction report (its MED case, the last status applied). */
export const acquirerInfractionKey = (accountId: string, reportId: string): ItemKey => ({
  pk: `INFRACTION#${accountId}#${reportId}`,
  sk: 'INFRACTION',
});
/**
 * GSI1 of an infraction record while its report waits for the charge's refunds in flight
 * (sparse: every other write of the record is a whole-item Put without it), so a reconciliation
 * run reads only its account's waiting reports, with one query.
 */
export const waitingInfractionsIndexPk = (accountId: string): string => `INFRACTIONWAIT#${accountId}`;
export const waitingInfractionIndex = (accountId: string, reportId: string) => ({
  gsi1pk: waitingInfractionsIndexPk(accountId),
  gsi1sk: reportId,
});
/** Up to when an account's acquirer was reconciled (`GET /pix`); on the RECONCILE due queue. */
export const reconciliationKey = (accountId: string): ItemKey => ({
  pk: accountPk(accountId),
  sk: 'RECONCILIATION',
});

// ── Money ─────────────────────────────────────────────────────────────────────────────────────

/**
 * One shard of a scope's balance in `currency` (`WALLET#<currency>#<shard>`): the balance is
 * the sum of every `WALLET#` item of the scope with that currency, read with one query. Without
 * a shard: the single item of money moved before sharding (still read and summed).
 */
export const walletKey = (scope: MerchantScope, currency: string, shard?: number): ItemKey => ({
  pk: scopePk(scope),
  sk: shard === undefined ? `${PREFIX.wallet}${currency}` : `${PREFIX.wallet}${currency}#${shard}`,
});
/** The shard of a wallet or live-counter sort key (`undefined`: the unsharded item). */
export function parseShard(sk: string): number | undefined {
  const match = /^(?:WALLET#[^#]+|COUNTER#PENDING_CHARGES)#(\d+)$/.exec(sk);
  return match ? Number(match[1]) : undefined;
}
export const journalKey = (scope: MerchantScope, at: string, journalId: string): ItemKey => ({
  pk: scopeItemPk(scope, journalId),
  sk: `${PREFIX.journal}${at}#${journalId}`,
});
export const trancheKey = (scope: MerchantScope, releaseAt: string, chargeId: string): ItemKey => ({
  pk: scopeItemPk(scope, chargeId),
  sk: `${PREFIX.tranche}${releaseAt}#${chargeId}`,
});

// ── MED cases ─────────────────────────────────────────────────────────────────────────────────

/** A MED case in its scope partition (by id); ids are `med_<UUIDv7>`, so the sort key orders by creation. */
export const medCaseKey = (scope: MerchantScope, caseId: string): ItemKey => ({
  pk: scopeItemPk(scope, caseId),
  sk: `${PREFIX.medCase}${caseId}`,
});
/**
 * The sort-key range of a scope's cases created within `(afterMs, beforeMs)` (exclusive; either
 * side open), and below `startingAfter` (a case id) when given: newest-first pages read down it.
 */
export function medCaseSkRange(span: { afterMs?: number; beforeMs?: number; startingAfter?: string }): {
  from: string;
  to: string;
} {
  const prefix = `${PREFIX.medCase}med_`;
  // A floor is below every id of its millisecond: after `afterMs` starts at the next one's floor.
  const from =
    span.afterMs === undefined ? prefix : `${prefix}${chargeIdFloor(Math.floor(span.afterMs) + 1)}`;
  const before =
    span.beforeMs === undefined ? prefixEnd(prefix) : `${prefix}${chargeIdFloor(Math.ceil(span.beforeMs))}`;
  // BETWEEN is inclusive: the cursor's own key is excluded by the reader (it skips it).
  const cursor = span.startingAfter === undefined ? undefined : `${PREFIX.medCase}${span.startingAfter}`;
  return { from, to: cursor !== undefined && cursor < before ? cursor : before };
}

// ── MED evidence ──────────────────────────────────────────────────────────────────────────────

/** A case's evidence lives in the case's own partition. */
export const caseEvidencePk = (scope: MerchantScope, caseId: string): string => scopeItemPk(scope, caseId);
/** An evidence item in its case's partition, grouped under its case (`begins_with` lists a case's). */
export const medEvidenceKey = (scope: MerchantScope, caseId: string, evidenceId: string): ItemKey => ({
  pk: caseEvidencePk(scope, caseId),
  sk: `${PREFIX.medEvidence}${caseId}#${evidenceId}`,
});
export const medEvidenceCasePrefix = (caseId: string): string => `${PREFIX.medEvidence}${caseId}#`;

/**
 * The key an upload grant names: under the uploads' own top-level prefix (`uploads/`, which the
 * bucket's lifecycle expires: an upload is only read by `complete`, within the grant), then the
 * account, the mode and a random token (not guessable from any id).
 */
export const evidenceObjectKey = (scope: MerchantScope, token: string): string =>
  `${evidenceBucket.uploadKeyPrefix}${scope.accountId}/${scope.mode}/${token}`;
/**
 * Where `complete` copies a confirmed file: under the accounts' prefix (`accounts/<id>/`, kept:
 * no lifecycle rule expires it), outside `uploads/`, so no upload grant (which names only
 * `evidenceObjectKey`s) can ever write it; random like the upload key.
 */
export const evidenceStoredObjectKey = (scope: MerchantScope, token: string): string =>
  `${evidenceBucket.storedKeyPrefix}${scope.accountId}/${scope.mode}/${evidenceBucket.storedCopyFolder}/${token}`;

// ── Webhooks ──────────────────────────────────────────────────────────────────────────────────

export const eventKey = (scope: MerchantScope, createdAt: string, eventId: string): ItemKey => ({
  pk: scopeItemPk(scope, eventId),
  sk: `${PREFIX.event}${createdAt}#${eventId}`,
});
/** The key of a scope's event by its sort key (`EVENT#<time>#<evtId>`: the id picks the partition). */
export function eventKeyOfSk(scope: MerchantScope, sk: string): ItemKey {
  const at = sk.lastIndexOf('#');
  if (!sk.startsWith(PREFIX.event) || at <= PREFIX.event.length)
    throw new Error(`Not an event sort key: ${sk}`);
  return eventKey(scope, sk.slice(PREFIX.event.length, at), sk.slice(at + 1));
}
export const webhookEndpointKey = (scope: MerchantScope, endpointId: string): ItemKey => ({
  pk: scopePk(scope),
  sk: `${PREFIX.webhookEndpoint}${endpointId}`,
});
/**
 * How many endpoints the scope holds (`count`), for the cap on them: `+1` with each endpoint's
 * put, `-1` with its delete, in the same transaction. Outside `WEBHOOKEP#`, so the endpoint list
 * never reads it, and outside the live-charge counter's `COUNTER#PENDING_CHARGES` range.
 */
export const webhookEndpointCountKey = (scope: MerchantScope): ItemKey => ({
  pk: scopePk(scope),
  sk: 'COUNTER#WEBHOOK_ENDPOINTS',
});
export const overrideSecretKey = (scope: MerchantScope): ItemKey => ({
  pk: scopePk(scope),
  sk: 'WEBHOOKOVERRIDE#SECRET',
});
export const deliveryKey = (scope: MerchantScope, eventCreatedAt: string, deliveryId: string): ItemKey => ({
  pk: scopeItemPk(scope, deliveryId),
  sk: `${PREFIX.delivery}${eventCreatedAt}#${deliveryId}`,
});
/** The event time and id in a delivery's sort key (`DELIVERY#<eventTime>#<deliveryId>`). */
export function parseDeliverySk(sk: string): { eventCreatedAt: string; deliveryId: string } {
  const at = sk.lastIndexOf('#');
  if (!sk.startsWith(PREFIX.delivery) || at <= PREFIX.delivery.length)
    throw new Error(`Not a delivery sort key: ${sk}`);
  return { eventCreatedAt: sk.slice(PREFIX.delivery.length, at), deliveryId: sk.slice(at + 1) };
}
export const endpointDeliveriesIndexPk = (endpointId: string): string => `WHDELIV#${endpointId}`;
/** GSI1 of an endpoint's deliveries (cancelled together when the endpoint is deleted; its list). */
export const endpointDeliveriesIndex = (endpointId: string, eventCreatedAt: string, deliveryId: string) => ({
  gsi1pk: endpointDeliveriesIndexPk(endpointId),
  gsi1sk: `${eventCreatedAt}#${deliveryId}`,
});

/** The status and event type of a delivery (and its endpoint, for the endpoint's cells). */
interface DeliveryCell {
  status: string;
  eventType: string;
  endpointId?: string;
}

/**
 * A delivery's cell partitions, newest first by event time: GSI2 `WHDCELL#<acct>#<mode>#<status>#<eventType>`
 * (every delivery) and GSI3 `WHDCELL#<acct>#<mode>#<status>#<eventType>#<endpointId>` (an endpoint's
 * deliveries; override deliveries have none). Every filter of the delivery list but "none" and
 * "endpoint only" is one cell or a merge of a few (docs/data-model.md). The partition keys move
 * with the status; the sort keys never change.
 */
export const deliveryCellIndexPk = (scope: MerchantScope, cell: DeliveryCell): string =>
  `WHDCELL#${scope.accountId}#${scope.mode}#${cell.status}#${cell.eventType}`;
export const endpointDeliveryCellIndexPk = (
  scope: MerchantScope,
  cell: DeliveryCell & { endpointId: string },
): string => `${deliveryCellIndexPk(scope, cell)}#${cell.endpointId}`;
/** The cell index attributes of a delivery in `cell` (GSI2, and GSI3 when it has an endpoint). */
export const deliveryCellIndexes = (
  scope: MerchantScope,
  cell: DeliveryCell,
  eventCreatedAt: string,
  deliveryId: string,
) => ({
  gsi2pk: deliveryCellIndexPk(scope, cell),
  gsi2sk: `${eventCreatedAt}#${deliveryId}`,
  ...(cell.endpointId !== undefined && {
    gsi3pk: endpointDeliveryCellIndexPk(scope, { ...cell, endpointId: cell.endpointId }),
    gsi3sk: `${eventCreatedAt}#${deliveryId}`,
  }),
});

/**
 * Delivery counters, in the scope's partition: per event type (`DELIVERYCOUNT#T#<eventType>#<shard>`)
 * and per endpoint and event type (`DELIVERYCOUNT#E#<endpointId>#<eventType>#<shard>`), each with
 * `total` and one count per status. A delivery always counts in the same shard (derived from its
 * id), so concurrent status changes of different deliveries rarely touch the same item.
 */
export const deliveryCountKey = (
  scope: MerchantScope,
  counter: { eventType: string; endpointId?: string },
  shard: number,
): ItemKey => ({
  pk: scopePk(scope),
  sk:
    counter.endpointId === undefined
      ? `${PREFIX.deliveryCount}T#${counter.eventType}#${shard}`
      : `${PREFIX.deliveryCount}E#${counter.endpointId}#${counter.eventType}#${shard}`,
});
/** Prefixes of the counters: every event type's, or one endpoint's (read with `prefixEnd`). */
export const deliveryCountPrefix = {
  byEventType: `${PREFIX.deliveryCount}T#`,
  ofEndpoint: (endpointId: string): string => `${PREFIX.deliveryCount}E#${endpointId}#`,
} as const;
/**
 * The stream-counting marker of one counted item (a delivery or a charge, by its own key): the
 * `eventID`s of its stream records already counted, added in the transaction of the counters
 * they moved, so a record delivered again counts nothing twice. Its own partition (nothing
 * lists markers); removed by TTL.
 */
export const countedMarkerKey = (source: ItemKey): ItemKey => ({
  pk: `COUNTED#${source.pk}#${source.sk}`,
  sk: 'COUNTED',
});
/**
 * The claim of one MED notice e-mail (by its event id): put on condition that it is new before
 * sending, so a replayed stream batch does not e-mail twice. Its own partition; removed by TTL.
 */
export const emailNoticeKey = (eventId: string): ItemKey => ({
  pk: `EMAILNOTICE#${eventId}`,
  sk: 'EMAILNOTICE',
});
/**
 * Above every key that starts with `prefix` (keys are ASCII): `sk BETWEEN prefix AND
 * prefixEnd(prefix)` reads what `begins_with` would. DynamoDB Local answers a `begins_with` by
 * walking the partition (a counter query took 16 ms instead of 4 in a partition of 20 000 items,
 * and a scope's partition holds every delivery and event); `BETWEEN` it answers as a range.
 */
export const prefixEnd = (prefix: string): string => `${prefix}\uffff`;
