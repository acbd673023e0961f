/**
 * MED (Pix dispute) cases (Part 2, "MED case"): the record, its public serializer, the case
 * state machine as one table (which step leaves which status, where it goes, which money outcome
 * it decides) and the events each step emits, the informational `metadata.med` of the disputed
 * transaction, and the input schemas of the MED routes. Pure: the clock and ids are handed in.
 */

import * as v from 'valibot';
import { PIX_MAX_AMOUNT } from './charge-input.ts';
import type { ChargeRecord } from './charges.ts';
import { InvalidInput } from './errors.ts';
import { parseIsoBound } from './iso-time.ts';
import { parseChargeId, prefixedUuidV7, publicChargeId } from './pix-ids.ts';
import { hasRefundsInFlight, refundableAmount } from './refunds.ts';
import { canApply, type Trigger } from './transaction-status.ts';
import { boundsReversed, maxChars, oneOf, parseInput, queryInteger } from './validation.ts';

export const medCaseStatuses = ['open', 'appealed', 'accepted', 'rejected', 'closed'] as const;
export type MedCaseStatus = (typeof medCaseStatuses)[number];
export const medCaseTypes = ['med', 'chargeback', 'dispute', 'fraud'] as const;
export type MedCaseType = (typeof medCaseTypes)[number];
export const moneyOutcomes = ['refunded_to_merchant', 'closed_without_refund', 'lost'] as const;
export type MoneyOutcome = (typeof moneyOutcomes)[number];
const medMethods = ['scam', 'unauthorized', 'coercion', 'invasion', 'other'] as const;
type MedMethod = (typeof medMethods)[number];

const MED_CASE_ID_PREFIX = 'med_';
/** `med_<UUIDv7>` (ids sort by creation). */
const MED_CASE_ID_PATTERN = prefixedUuidV7(MED_CASE_ID_PREFIX);
export const isMedCaseId = (id: string | undefined): id is string =>
  id !== undefined && MED_CASE_ID_PATTERN.test(id);

export interface MedCaseRecord {
  /** `med_<UUIDv7>`. */
  id: string;
  accountId: string;
  mode: 'live' | 'test';
  type: MedCaseType;
  status: MedCaseStatus;
  amount: number;
  currency: string;
  /** Raw charge id (the public one is `ch_<id>`). */
  chargeId: string;
  reason: string | null;
  method: MedMethod | null;
  payerName: string | null;
  payerDocument: string | null;
  responseDeadline: string | null;
  evidenceRequestedAt: string | null;
  appealReason: string | null;
  appealedAt: string | null;
  moneyOutcome: MoneyOutcome | null;
  /** Confirmed evidence uploads (absent on cases stored before evidence existed: 0). */
  evidenceCount?: number;
  /** The MED channel's decisions on this case pass an operations review first (sandbox `review`). */
  review?: boolean;
  /** The reported amount differed from the charge's (`metadata.med.amountMismatch`). */
  amountMismatch?: boolean;
  /** What waits for an operator (`npm run admin -- med-review`); absent when nothing does. */
  pendingReview?: PendingReview;
  openedAt: string;
  closedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /**
   * How many writes the stored case has had since it was created (absent: none). Every write adds
   * 1, so a change is committed only over the case it read: a clock's millisecond is no version
   * (an evidence upload and an appeal can share one).
   */
  version?: number;
}

/** The public `med_case` object (Part 2), field by field. */
export function serializeMedCase(medCase: MedCaseRecord) {
  return {
    id: medCase.id,
    object: 'med_case' as const,
    type: medCase.type,
    status: medCase.status,
    amount: medCase.amount,
    currency: medCase.currency,
    charge_id: publicChargeId(medCase.chargeId),
    reason: medCase.reason,
    response_deadline: medCase.responseDeadline,
    evidence_requested_at: medCase.evidenceRequestedAt,
    appeal_reason: medCase.appealReason,
    appealed_at: medCase.appealedAt,
    evidence_count: medCase.evidenceCount ?? 0,
    money_outcome: medCase.moneyOutcome,
    opened_at: medCase.openedAt,
    closed_at: medCase.closedAt,
    created_at: medCase.createdAt,
    updated_at: medCase.updatedAt,
  };
}
export type MedCaseObject = ReturnType<typeof serializeMedCase>;

// ── Operations review ─────────────────────────────────────────────────────────────────────────

/**
 * What an operator applies or rejects (Part 2: "others first pass an operations review and the
 * case keeps its current status meanwhile"): a reported amount other than the charge's (nothing
 * held, the charge untouched until applied), or a decision of the MED channel on a case opened
 * with `review`.
 */
type PendingReview =
  | { kind: 'amount_mismatch'; reportedAmount: number; since: string }
  | { kind: 'decision'; outcome: MedDecision; since: string };

/**
 * The amount an applied mismatch holds: the reported amount, at most what the payer paid and was
 * not already refunded (a case never holds more than the charge brought in).
 */
const contestableAmount = (reportedAmount: number, chargeAmount: number, refundedAmount = 0): number =>
  Math.min(reportedAmount, chargeAmount - refundedAmount);

/** The code of a refusal that passes later: refunds of the charge are not settled (or failed) yet. */
export const REFUNDS_IN_FLIGHT = 'refunds_in_flight';
/** The 400 code of a step refused while the case waits for an operations review (README, "Cases that wait for operations"). */
export const MED_CASE_UNDER_REVIEW = 'med_case_under_review';
const refundsInFlight = (what: string) =>
  new InvalidInput(
    `Refunds of this charge are still in flight: ${what} once they have been paid or have failed.`,
    {
      param: 'id',
      code: REFUNDS_IN_FLIGHT,
    },
  );

/**
 * What holding a mismatch case's reported amount takes (`apply-med-review.ts`): the reported
 * amount, at most what is left of the charge; 400 while refunds of it are in flight (as at opening).
 */
export function heldOnReview(reportedAmount: number, charge: ChargeRecord): number {
  if (hasRefundsInFlight(charge)) throw refundsInFlight('the review can be applied');
  return contestableAmount(reportedAmount, charge.amount, charge.refundedAmount);
}

/**
 * What a MED case opened against the charge holds; 400 unless one may open: paid, no case of it
 * undecided, no refund of it in flight, and something left to contest. What is left: the amount
 * less its refunds paid (a case never holds what was already given back). While a refund is in
 * flight its end decides what is left (a failed one puts its reserve back in `available`, which a
 * case opened before would not hold), so the case waits for it.
 */
export function disputableAmount(charge: ChargeRecord): number {
  const undecidedCase = charge.med !== undefined && charge.med.closedAt === null;
  if (charge.status === 'DISPUTE' || charge.status === 'CHARGEBACK' || undecidedCase)
    throw new InvalidInput('This charge is already disputed.', { param: 'id' });
  if (!canApply('openDispute', charge.status))
    throw new InvalidInput(`A MED case needs a paid charge; this one is ${charge.status}.`, { param: 'id' });
  if (hasRefundsInFlight(charge)) throw refundsInFlight('a case can open');
  // Refunds paid in full make the charge REFUNDED (refused above): something is left.
  return refundableAmount(charge);
}

// ── Acquirer infraction reports (the MED port) ─────────────────────────────────────────────────

/**
 * An infraction (MED) the payer's bank reported against a Pix received, as DICT's
 * `ExtendedInfractionReport` (`shared/reference/bcb-dict-api.schemas.yaml`) describes it:
 * OPEN → ACKNOWLEDGED → CLOSED (AGREED: the fraud is confirmed, the money goes back; DISAGREED:
 * it stays with the merchant), or CANCELLED.
 */
export interface InfractionReport {
  id: string;
  /** `TransactionId`: the end-to-end id of the Pix. */
  endToEndId: string;
  infractionType: 'FRAUD' | 'REFUND_REQUEST' | 'REFUND_CANCELLED';
  reportDetails?: string;
  status: 'OPEN' | 'ACKNOWLEDGED' | 'CLOSED' | 'CANCELLED';
  analysisResult?: 'AGREED' | 'DISAGREED';
  lastModified: string;
}

/** A report's statuses past which it never changes again. */
export const FINAL_INFRACTION_STATUSES = ['CLOSED', 'CANCELLED'] as const;
export const isFinalInfraction = (status: string): boolean =>
  (FINAL_INFRACTION_STATUSES as readonly string[]).includes(status);
/**
 * The `applied` of a report's record while its case waits for the charge's refunds in flight
 * (`REFUNDS_IN_FLIGHT`): the record keeps the report, retried by every reconciliation run.
 */
export const INFRACTION_WAITING = 'WAITING';

// ── The case state machine ────────────────────────────────────────────────────────────────────

/** The merchant's steps and the sandbox's decisions (`POST …/decide` `outcome`). */
export const medDecisions = ['merchant_won', 'merchant_lost', 'withdrawn', 'closed_without_refund'] as const;
export type MedDecision = (typeof medDecisions)[number];
export type MedStep = 'appeal' | 'accept' | MedDecision;

interface MedStepRule {
  from: readonly MedCaseStatus[];
  to: MedCaseStatus;
  /** The money's final destination this step decides (`null`: still undecided). */
  outcome: MoneyOutcome | null;
}

/**
 * Every case transition (Part 2, "MED case" table; the sandbox's outcomes, README "MED cases"):
 * open → appealed | accepted | closed | rejected; appealed → rejected | closed. Accepted,
 * rejected and closed are final.
 */
export const MED_STEPS = {
  appeal: { from: ['open'], to: 'appealed', outcome: null },
  accept: { from: ['open'], to: 'accepted', outcome: 'lost' },
  merchant_won: { from: ['open', 'appealed'], to: 'closed', outcome: 'refunded_to_merchant' },
  merchant_lost: { from: ['open', 'appealed'], to: 'rejected', outcome: 'lost' },
  withdrawn: { from: ['open'], to: 'closed', outcome: 'refunded_to_merchant' },
  closed_without_refund: { from: ['open', 'appealed'], to: 'closed', outcome: 'closed_without_refund' },
} as const satisfies Record<MedStep, MedStepRule>;

export const canApplyMedStep = (step: MedStep, from: MedCaseStatus): boolean =>
  (MED_STEPS[step].from as readonly MedCaseStatus[]).includes(from);

/** A case may still move (its money is held): open or appealed. */
export const isUndecided = (status: MedCaseStatus): boolean => status === 'open' || status === 'appealed';

/**
 * What the charge does when the money's destination becomes final: won → settled again
 * (`winDispute`, PAID); lost or closed without refund → `loseDispute` (CHARGEBACK: the money
 * left the merchant, so the charge stays `disputed` publicly, never `paid` again).
 */
export const chargeTriggerOf = (outcome: MoneyOutcome): Trigger =>
  outcome === 'refunded_to_merchant' ? 'winDispute' : 'loseDispute';

export type MedEventType = 'med_case.created' | 'med_case.updated' | 'med.resolved';

/**
 * The events of a step (Part 2, "Which operation or transition emits what"): `med_case.updated`
 * on every status change and when evidence is requested, and `med.resolved` when the step fixes
 * the money's destination.
 */
export function medEventTypesOf(step: MedStep | 'open' | 'requestEvidence'): MedEventType[] {
  if (step === 'open') return ['med_case.created'];
  if (step === 'requestEvidence') return ['med_case.updated'];
  return MED_STEPS[step].outcome === null ? ['med_case.updated'] : ['med_case.updated', 'med.resolved'];
}

/** The case after `step` at `at`; throws if the table has no such transition (check first). */
export function applyMedStep(
  medCase: MedCaseRecord,
  step: MedStep,
  at: string,
  appealReason?: string,
): MedCaseRecord {
  if (!canApplyMedStep(step, medCase.status)) throw new Error(`No MED step ${step} from ${medCase.status}`);
  const rule: MedStepRule = MED_STEPS[step];
  return {
    ...medCase,
    status: rule.to,
    moneyOutcome: rule.outcome,
    ...(step === 'appeal' && { appealReason: appealReason ?? null, appealedAt: at }),
    ...(rule.outcome !== null && { closedAt: at }),
    updatedAt: at,
  };
}

// ── metadata.med of the disputed transaction ──────────────────────────────────────────────────

/** Informational `metadata.med` (Part 2): kept on the charge, rewritten with every case step. */
export interface MedMetadata {
  referenceId: string | null;
  status: 'created' | 'delivered' | 'closed' | 'canceled';
  result?: 'agreed' | 'disagreed';
  method: MedMethod | null;
  reason: string | null;
  payerName: string | null;
  payerDocument: string | null;
  openedAt: string;
  updatedAt: string;
  closedAt: string | null;
  lastEventAt: string;
  amountMismatch: boolean;
}

/**
 * The case as `metadata.med` reports it: open → `created`, appealed → `delivered` (the
 * merchant's answer is in), decided → `closed` with `result` `agreed` (the merchant lost the
 * money) or `disagreed` (won); a withdrawn case is `canceled`.
 */
export function medMetadataOf(
  medCase: MedCaseRecord,
  endToEndId: string | undefined,
  at: string,
  step?: MedStep,
): MedMetadata {
  const outcome = medCase.moneyOutcome;
  const status: MedMetadata['status'] =
    step === 'withdrawn'
      ? 'canceled'
      : medCase.status === 'open'
        ? 'created'
        : medCase.status === 'appealed'
          ? 'delivered'
          : 'closed';
  return {
    referenceId: endToEndId ?? null,
    status,
    ...(outcome !== null && { result: outcome === 'refunded_to_merchant' ? 'disagreed' : 'agreed' }),
    method: medCase.method,
    reason: medCase.reason,
    payerName: medCase.payerName,
    payerDocument: medCase.payerDocument,
    openedAt: medCase.openedAt,
    updatedAt: medCase.updatedAt,
    closedAt: medCase.closedAt,
    lastEventAt: at,
    amountMismatch: medCase.amountMismatch ?? false,
  };
}

// ── Inputs ────────────────────────────────────────────────────────────────────────────────────

/** A real calendar date or date-time in ISO 8601 (`2026-02-30` and `T24:00` are malformed, not rolled over); no offset is UTC. */
const isoDate = v.pipe(
  v.string(),
  v.check(
    (text) => parseIsoBound(text, 'start') !== undefined,
    'Must be an ISO 8601 date (2026-05-01) or date-time (2026-05-01T13:45:00Z)',
  ),
);

/** The instant an `isoDate` names, in milliseconds. */
const instantOf = (text: string): number => parseIsoBound(text, 'start') as number;

/** The longest reason a case or an appeal keeps (Part 2: 2000 characters). */
export const MED_REASON_MAX_LENGTH = 2000;

/** `POST /v1/sandbox/charges/{id}/med` body (every field optional). */
export const openMedCaseSchema = v.strictObject({
  amount: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(PIX_MAX_AMOUNT, `Must be at most ${PIX_MAX_AMOUNT}`),
    ),
  ),
  type: v.optional(oneOf(medCaseTypes)),
  method: v.optional(oneOf(medMethods)),
  reason: v.optional(v.pipe(v.string(), v.maxLength(MED_REASON_MAX_LENGTH))),
  payer_name: v.optional(v.pipe(v.string(), v.maxLength(200))),
  payer_document: v.optional(v.pipe(v.string(), v.maxLength(32))),
  response_deadline: v.optional(
    v.pipe(
      isoDate,
      v.transform((text) => new Date(instantOf(text)).toISOString()),
    ),
  ),
  review: v.optional(v.boolean()),
});
export type OpenMedCaseBody = v.InferOutput<typeof openMedCaseSchema>;

/**
 * `POST /v1/med/cases/{id}/appeal`: `reason` trimmed, not blank, 5–2000 characters as a person
 * counts them (graphemes: an emoji or an accented letter is one, never two UTF-16 units). Strict:
 * an unknown field is 400 on it (README "API decisions": never ignored).
 */
export const appealSchema = v.strictObject({
  reason: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('Must not be blank'),
    v.minGraphemes(5, 'Must be at least 5 characters'),
    ...maxChars(MED_REASON_MAX_LENGTH),
    v.description(
      `5–${MED_REASON_MAX_LENGTH} characters (as read: an emoji counts once), not blank; trimmed.`,
    ),
  ),
});

/** `POST /v1/sandbox/med/cases/{id}/decide`. */
export const decideSchema = v.strictObject({ outcome: oneOf(medDecisions) });

const MED_LIST_DEFAULT_LIMIT = 25;
const MED_LIST_MAX_LIMIT = 100;

/**
 * A list bound: an ISO 8601 date with at most millisecond precision. Case times are milliseconds
 * and the bounds exclusive, so `…41.6909Z` names no instant a case can have: refused (400 on the
 * parameter) rather than rounded one way or the other.
 */
const listBound = v.pipe(
  isoDate,
  v.check((text) => !/\.\d{4,}/.test(text), 'Must have at most 3 fractional digits (milliseconds)'),
);

/** `GET /v1/med/cases` query, every value checked (filters are never ignored). */
export const listMedCasesSchema = v.strictObject({
  limit: queryInteger(1, MED_LIST_MAX_LIMIT, MED_LIST_DEFAULT_LIMIT),
  starting_after: v.optional(v.string()),
  status: v.optional(oneOf(medCaseStatuses)),
  type: v.optional(oneOf(medCaseTypes)),
  charge_id: v.optional(v.string()),
  created_after: v.optional(listBound),
  created_before: v.optional(listBound),
});

export interface MedCaseListQuery {
  limit: number;
  startingAfter?: string;
  status?: MedCaseStatus;
  type?: MedCaseType;
  /** Raw charge id. */
  chargeId?: string;
  createdAfterMs?: number;
  createdBeforeMs?: number;
}

/** The list query, or 400 `invalid_request` with the `param` at fault. */
export function parseMedListQuery(query: Record<string, string>): MedCaseListQuery {
  const q = parseInput(listMedCasesSchema, query, 'query');
  let chargeId: string | undefined;
  if (q.charge_id !== undefined) {
    chargeId = q.charge_id.startsWith('ch_') ? parseChargeId(q.charge_id) : undefined;
    if (chargeId === undefined)
      throw new InvalidInput('charge_id must be a charge id (ch_…).', { param: 'charge_id' });
  }
  const createdAfterMs = q.created_after === undefined ? undefined : instantOf(q.created_after);
  const createdBeforeMs = q.created_before === undefined ? undefined : instantOf(q.created_before);
  // Bounds the wrong way round are a mistake, as on the charge and payment lists (equal ones, being
  // exclusive, are merely an empty window).
  if (createdAfterMs !== undefined && createdBeforeMs !== undefined && createdBeforeMs < createdAfterMs)
    throw boundsReversed('created_after', 'created_before');
  if (q.starting_after !== undefined && !isMedCaseId(q.starting_after))
    throw new InvalidInput('starting_after must be the id of one of your MED cases.', {
      param: 'starting_after',
    });
  return {
    limit: Number(q.limit),
    ...(q.starting_after !== undefined && { startingAfter: q.starting_after }),
    ...(q.status !== undefined && { status: q.status }),
    ...(q.type !== undefined && { type: q.type }),
    ...(chargeId !== undefined && { chargeId }),
    ...(createdAfterMs !== undefined && { createdAfterMs }),
    ...(createdBeforeMs !== undefined && { createdBeforeMs }),
  };
}
