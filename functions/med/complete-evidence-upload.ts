import { NotFound } from '#shared/domain/errors.ts';
import { isMedCaseId } from '#shared/domain/med-cases.ts';
import { isMedEvidenceId } from '#shared/domain/med-evidence.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { completeEvidenceUpload as complete } from '#shared/services/complete-evidence-upload.ts';

/**
 * POST /v1/med/cases/{id}/evidence/{evidence_id}/complete: 200 the evidence once its file is in
 * storage (idempotent); 409 `EVIDENCE_NOT_UPLOADED` / `EVIDENCE_SIZE_MISMATCH`.
 */
export const completeEvidenceUpload: RouteHandler<KeyPrincipal> = async ({
  principal,
  pathParameters,
  headers,
}) => {
  const { id, evidence_id: evidenceId } = pathParameters;
  if (!isMedCaseId(id) || !isMedEvidenceId(evidenceId)) throw new NotFound('No such MED evidence.');
  return { status: 200, body: await complete(principal, id, evidenceId, headers) };
};
