/** `sandbox` group: test-mode routes that act as the acquirer and the payer's bank (live keys: 404). */

import * as v from 'valibot';
import { decideSchema, openMedCaseSchema } from '../../domain/med-cases.ts';
import { SandboxAcquirerBody, SimulatePaymentBody } from '../../domain/sandbox-input.ts';
import { Charge } from './charges.ts';
import { MedCase } from './med.ts';
import type { Operation, Operations } from './operation.ts';
import { Refund } from './payments.ts';

const refundOutcome = (summary: string, description: string): Operation => ({
  summary,
  description,
  responses: { 200: { description: 'The refund.', schema: Refund } },
  errors: { 400: ['refund_final'] },
});

export const sandboxOperations: Operations<'sandbox'> = {
  simulatePayment: {
    summary: 'Pay a charge (sandbox)',
    description:
      'A Pix arrives as the acquirer would report it. Omitting `payer_document` means the bank did not report it; another `amount` is returned to the payer.',
    body: SimulatePaymentBody,
    responses: {
      200: {
        description: 'What settlement did with the Pix.',
        schema: v.strictObject({
          object: v.literal('sandbox_payment'),
          end_to_end_id: v.string(),
          outcome: v.picklist(['paid', 'held_for_review', 'refunded', 'returned']),
          return_reason: v.optional(v.string()),
          charge: Charge,
        }),
      },
    },
  },
  simulateExpiry: {
    summary: 'Expire a charge (sandbox)',
    description: 'The charge’s window closes now; 400 if it is not pending.',
    responses: { 200: { description: 'The expired charge.', schema: Charge } },
    errors: { 400: ['invalid_request'] },
  },
  setSandboxAcquirer: {
    summary: 'Set the sandbox acquirer’s state',
    description:
      'While down, creating a charge answers 503 and stores nothing. Without payouts, `cashout` refunds answer 422 `REFUND_NOT_SUPPORTED`.',
    body: SandboxAcquirerBody,
    responses: {
      200: {
        description: 'The acquirer’s state.',
        schema: v.strictObject({
          object: v.literal('sandbox_acquirer'),
          status: v.picklist(['up', 'down']),
          payouts: v.picklist(['supported', 'unsupported']),
        }),
      },
    },
    errors: { 404: ['not_found'] },
  },
  simulateRefundFailure: refundOutcome(
    'Fail a refund (sandbox)',
    'The acquirer reports the refund cannot be done: `FAILED`, the reserve back to `available`.',
  ),
  simulateRefundConfirmation: refundOutcome(
    'Confirm a refund (sandbox)',
    'The acquirer confirms at once: `REFUNDED`.',
  ),
  simulateMedOpening: {
    summary: 'Open a MED case (sandbox)',
    description:
      'The payer’s bank opens a MED case against a paid charge, holding its amount less its refunds (an `amount` other than the charge’s waits for an operator); 400 if it is not paid, already has an undecided case, or a refund of it is in flight (`refunds_in_flight`).',
    body: openMedCaseSchema,
    responses: { 201: { description: 'The case.', schema: MedCase } },
    errors: { 400: ['invalid_request', 'refunds_in_flight'] },
  },
  simulateMedEvidenceRequest: {
    summary: 'Request evidence on a MED case (sandbox)',
    description: 'Sets `evidence_requested_at`; 400 once decided.',
    responses: { 200: { description: 'The case.', schema: MedCase } },
    errors: { 400: ['invalid_request'] },
  },
  simulateMedDecision: {
    summary: 'Decide a MED case (sandbox)',
    description:
      'The MED channel’s decision. A case opened with `review` answers 202 and keeps its status until an operator applies the decision; another decision meanwhile, or any decision while a reported amount waits for review, is 400 `med_case_under_review`.',
    body: decideSchema,
    responses: {
      200: { description: 'The decided case.', schema: MedCase },
      202: { description: 'The unchanged case: the decision waits for an operator.', schema: MedCase },
    },
    errors: { 400: ['invalid_request', 'med_case_under_review'] },
  },
};
