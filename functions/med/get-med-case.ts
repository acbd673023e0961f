import { NotFound } from '#shared/domain/errors.ts';
import { isMedCaseId, serializeMedCase } from '#shared/domain/med-cases.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { getMedCase as read } from '#shared/store/med-cases.ts';

/** GET /v1/med/cases/{id} (and /v1/infractions/{id}): 404 unless the case is the caller's (account and mode). */
export const getMedCase: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const id = pathParameters.id;
  const medCase = isMedCaseId(id) ? await read(principal, id) : undefined;
  if (!medCase) throw new NotFound('No such MED case.');
  return { status: 200, body: serializeMedCase(medCase) };
};
