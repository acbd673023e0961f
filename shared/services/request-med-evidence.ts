/**
 * The platform asks the merchant for evidence (today the sandbox's
 * `POST /v1/sandbox/med/cases/{id}/request-evidence`): `evidence_requested_at`, `med_case.updated`.
 * Only while the case is undecided (open or appealed).
 */

import type { MedCaseRecord } from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { changeMedCase } from './med-case-change.ts';

export const requestMedEvidence = (scope: MerchantScope, caseId: string): Promise<MedCaseRecord> =>
  changeMedCase(scope, caseId, { step: 'requestEvidence' });
