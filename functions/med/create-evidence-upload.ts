import { NotFound } from '#shared/domain/errors.ts';
import { isMedCaseId } from '#shared/domain/med-cases.ts';
import { evidenceDeclarationSchema } from '#shared/domain/med-evidence.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { createEvidenceUpload as create } from '#shared/services/create-evidence-upload.ts';

/**
 * POST /v1/med/cases/{id}/evidence: `file_name` (1–255), `file_size` (exact bytes, ≤ 10 MB),
 * `mime_type` (png, jpeg, webp, gif, pdf) → 201 upload grant (presigned PUT, 900 s).
 */
export const createEvidenceUpload: RouteHandler<KeyPrincipal> = async ({
  principal,
  pathParameters,
  body,
  headers,
}) => {
  const declaration = parseInput(evidenceDeclarationSchema, body, 'body');
  const id = pathParameters.id;
  if (!isMedCaseId(id)) throw new NotFound('No such MED case.');
  return { status: 201, body: await create(principal, id, declaration, headers) };
};
