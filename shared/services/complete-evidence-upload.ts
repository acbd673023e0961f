/**
 * `POST /v1/med/cases/{id}/evidence/{evidence_id}/complete`: checks the file in storage
 * (`HeadObject`). Absent, or the grant expired: 409 `EVIDENCE_NOT_UPLOADED`; another size than
 * declared: 409 `EVIDENCE_SIZE_MISMATCH`; else the file is copied server-side to a key no grant
 * names (the upload URL stays valid for the rest of its 900 s, so a later PUT there must not
 * replace what operations read: README "MED cases"), and in one transaction the evidence becomes
 * uploaded with that copy's key, size and ETag, and the case's `evidence_count` grows by one.
 * Idempotent: a confirmed evidence is returned as it is (a concurrent confirmation counts once;
 * the loser's copy is never referenced).
 */

import { Conflict, NotFound, StorageUnavailable } from '../domain/errors.ts';
import {
  type CompletionCheck,
  checkCompletion,
  EVIDENCE_VIEW_TTL_SECONDS,
  type MedEvidenceObject,
  type MedEvidenceRecord,
  serializeEvidence,
  viewObjectKey,
} from '../domain/med-evidence.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { newEvidenceObjectToken } from '../ids.ts';
import { copyObject, presignDownload, storedObjectSize } from '../storage/evidence-files.ts';
import { transactRetryingConflicts } from '../store/client.ts';
import { evidenceStoredObjectKey } from '../store/keys.ts';
import { confirmEvidenceItems, getEvidence } from '../store/med-evidence.ts';
import { faultRequested } from '../testing/faults.ts';

const withViewUrl = async (evidence: MedEvidenceRecord): Promise<MedEvidenceObject> =>
  serializeEvidence(evidence, await presignDownload(viewObjectKey(evidence), EVIDENCE_VIEW_TTL_SECONDS));

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
  throwUnlessConfirmed(check, evidence);
  // Checked again on the copy itself: it is what will be served.
  const storedKey = evidenceStoredObjectKey(scope, newEvidenceObjectToken());
  const copy = await copyObject(evidence.objectKey, storedKey);
  throwUnlessConfirmed(checkCompletion(evidence, copy?.size, Date.now()), evidence);
  const stored = { objectKey: storedKey, ...(copy as NonNullable<typeof copy>) };

  const uploadedAt = new Date().toISOString();
  const result = await transactRetryingConflicts(confirmEvidenceItems(evidence, uploadedAt, stored));
  if (result.committed) return withViewUrl({ ...evidence, status: 'uploaded', uploadedAt, stored });
  // Confirmed meanwhile by a concurrent call: answer what it stored.
  const current = await getEvidence(scope, caseId, evidenceId);
  if (result.failed.includes('evidence') && current?.status === 'uploaded') return withViewUrl(current);
  throw new Error(`Evidence ${evidenceId} confirmation failed on ${result.failed.join(', ')}`);
}

function throwUnlessConfirmed(check: CompletionCheck, evidence: MedEvidenceRecord): void {
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
}
