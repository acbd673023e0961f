import { NotFound } from '#shared/domain/errors.ts';
import { isMedCaseId } from '#shared/domain/med-cases.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { listMedEvidence as list } from '#shared/services/list-med-evidence.ts';

/** GET /v1/med/cases/{id}/evidence: confirmed evidence only, newest first, 5-minute `view_url`s. */
export const listMedEvidence: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const id = pathParameters.id;
  if (!isMedCaseId(id)) throw new NotFound('No such MED case.');
  return { status: 200, body: await list(principal, id) };
};
