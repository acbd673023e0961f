/**
 * `POST /v1/med/cases/{id}/accept`: the merchant accepts an open case (→ accepted,
 * `money_outcome` lost): the held amount leaves the merchant's books and the charge is charged back.
 */

import type { MedCaseRecord } from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { changeMedCase } from './med-case-change.ts';

export const acceptMedCase = (scope: MerchantScope, caseId: string): Promise<MedCaseRecord> =>
  changeMedCase(scope, caseId, { step: 'accept' });
