/**
 * `GET /v1/med/cases/{id}/evidence`: the case's confirmed evidence only, newest first, each with
 * a 5-minute presigned download `view_url` of the copy `complete` made (never the upload key).
 */

import { NotFound } from '../domain/errors.ts';
import {
  confirmedNewestFirst,
  EVIDENCE_VIEW_TTL_SECONDS,
  type MedEvidenceObject,
  serializeEvidence,
  viewObjectKey,
} from '../domain/med-evidence.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { presignDownload } from '../storage/evidence-files.ts';
import { getMedCase } from '../store/med-cases.ts';
import { queryCaseEvidence } from '../store/med-evidence.ts';

export async function listMedEvidence(
  scope: MerchantScope,
  caseId: string,
): Promise<{ object: 'list'; data: MedEvidenceObject[] }> {
  if (!(await getMedCase(scope, caseId))) throw new NotFound('No such MED case.');
  const confirmed = confirmedNewestFirst(await queryCaseEvidence(scope, caseId));
  const data = await Promise.all(
    confirmed.map(async (e) =>
      serializeEvidence(e, await presignDownload(viewObjectKey(e), EVIDENCE_VIEW_TTL_SECONDS)),
    ),
  );
  return { object: 'list', data };
}
