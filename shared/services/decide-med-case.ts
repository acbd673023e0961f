/**
 * A decision of the MED channel (today the sandbox's `POST /v1/sandbox/med/cases/{id}/decide`):
 * `merchant_won`, `merchant_lost`, `withdrawn` or `closed_without_refund`, as the case table
 * allows from the case's status (else 400).
 */

import type { MedCaseRecord, MedDecision } from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { changeMedCase } from './med-case-change.ts';

export const decideMedCase = (
  scope: MerchantScope,
  caseId: string,
  decision: MedDecision,
): Promise<MedCaseRecord> => changeMedCase(scope, caseId, { step: decision });
