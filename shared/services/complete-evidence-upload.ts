/**
 * `POST /v1/med/cases/{id}/evidence/{evidence_id}/complete`: checks the file in storage
 * (`HeadObject`). Absent, or the grant expired: 409 `EVIDENCE_NOT_UPLOADED`; another size than
 * declared: 409 `EVIDENCE_SIZE_MISMATCH`; else, in one transaction, the evidence becomes
 * uploaded and the case's `evidence_count` grows by one. Idempotent: a confirmed evidence is
 * returned as it is (a concurrent confirmation counts once).
 */

import { Conflict, NotFound, StorageUnavailable } from '../domain/errors.ts';
import {
  checkCompletion,
  EVIDENCE_VIEW_TTL_SECONDS,
  type MedEvidenceObject,
  type MedEvidenceRecord,
  serializeEvidence,
} from '../domain/med-evidence.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { presignDownload, storedObjectSize } from '../storage/evidence-files.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { confirmEvidenceItems, getEvidence } from '../store/med-evidence.ts';
import { faultRequested } from '../testing/faults.ts';

const withViewUrl = async (evidence: MedEvidenceRecord): Promise<MedEvidenceObject> =>
  serializeEvidence(evidence, await presignDownload(evidence.objectKey, EVIDENCE_VIEW_TTL_SECONDS));

export async function completeEvidenceUpload(
  scope: MerchantScope,
  caseId: string,
  evidenceId: string,
  headers: Record<string, string> = {},
): Promise<MedEvidenceObject> {
  const evidence = await getEvidence(scope, caseId, evidenceId);
  if (!evidence) throw new NotFound('No such MED evidence.');
  if (evidence.status === 'uploaded') return withViewUrl(evidence);
  if (faultRequested('evidence-storage', headers)) throw new StorageUnavailable();

  const check = checkCompletion(evidence, await storedObjectSize(evidence.objectKey), Date.now());
  if (check.outcome === 'notUploaded')
    throw new Conflict(
      'EVIDENCE_NOT_UPLOADED',
      'The file has not reached storage (or the upload URL expired): request a new grant and upload again.',
    );
  if (check.outcome === 'sizeMismatch')
    throw new Conflict(
      'EVIDENCE_SIZE_MISMATCH',
      `The stored file has ${check.storedSize} bytes; ${evidence.fileSize} were declared.`,
    );

  const uploadedAt = new Date().toISOString();
  const result = await transactRetryingConflicts(confirmEvidenceItems(evidence, uploadedAt));
  if (result.committed) return withViewUrl({ ...evidence, status: 'uploaded', uploadedAt });
  // Confirmed meanwhile by a concurrent call: answer what it stored.
  const current = await getEvidence(scope, caseId, evidenceId);
  if (result.failed.includes('evidence') && current?.status === 'uploaded') return withViewUrl(current);
  throw new Error(`Evidence ${evidenceId} confirmation failed on ${result.failed.join(', ')}`);
}
