/**
 * `POST /v1/med/cases/{id}/evidence`: the merchant declares a file and gets an upload grant, a
 * presigned PUT bound to the declared `Content-Type` and `Content-Length`, valid 900 s. The
 * evidence is stored `pending` (not listed, not counted) until `complete` finds the file.
 * Storage unavailable: 503, and nothing is written: the bucket is asked first (signing alone
 * never reaches S3), then the URL is signed, then the item written.
 */

import { NotFound, StorageUnavailable } from '../domain/errors.ts';
import {
  EVIDENCE_UPLOAD_TTL_SECONDS,
  type EvidenceDeclaration,
  newEvidenceRecord,
  pendingEvidenceExpiresAt,
  serializeUploadGrant,
} from '../domain/med-evidence.ts';
import type { MerchantScope } from '../domain/scope.ts';
import { newEvidenceObjectToken, newMedEvidenceId } from '../ids.ts';
import { assertStorageAnswers, presignUpload } from '../storage/evidence-files.ts';
import { transact } from '../store/client.ts';
import { evidenceObjectKey } from '../store/keys.ts';
import { getMedCase } from '../store/med-cases.ts';
import { newEvidenceItem } from '../store/med-evidence.ts';
import { faultRequested } from '../testing/faults.ts';

export async function createEvidenceUpload(
  scope: MerchantScope,
  caseId: string,
  declaration: EvidenceDeclaration,
  headers: Record<string, string> = {},
): Promise<ReturnType<typeof serializeUploadGrant>> {
  if (!(await getMedCase(scope, caseId))) throw new NotFound('No such MED case.');
  const now = Date.now();
  const evidence = newEvidenceRecord({
    id: newMedEvidenceId(now),
    scope,
    caseId,
    objectKey: evidenceObjectKey(scope, newEvidenceObjectToken()),
    declaration,
    nowMs: now,
  });
  if (faultRequested('evidence-storage', headers)) throw new StorageUnavailable();
  await assertStorageAnswers(evidence.objectKey);
  const uploadUrl = await presignUpload(
    evidence.objectKey,
    evidence.mimeType,
    evidence.fileSize,
    EVIDENCE_UPLOAD_TTL_SECONDS,
  );
  const result = await transact({ evidence: newEvidenceItem(evidence, pendingEvidenceExpiresAt(evidence)) });
  if (!result.committed) throw new Error(`Evidence ${evidence.id} already exists`);
  return serializeUploadGrant(evidence, uploadUrl);
}
