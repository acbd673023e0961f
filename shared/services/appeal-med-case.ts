/** `POST /v1/med/cases/{id}/appeal`: the merchant contests an open case (→ appealed). */

import type { MedCaseRecord } from '../domain/med-cases.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { changeMedCase } from './med-case-change.ts';

export const appealMedCase = (scope: MerchantScope, caseId: string, reason: string): Promise<MedCaseRecord> =>
  changeMedCase(scope, caseId, { step: 'appeal', appealReason: reason });
