import { NotFound } from '#shared/domain/errors.ts';
import { isMedCaseId, serializeMedCase } from '#shared/domain/med-cases.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { acceptMedCase as accept } from '#shared/services/accept-med-case.ts';

/**
 * POST /v1/med/cases/{id}/accept: no body (the edge answers 400 naming a field sent); only from
 * `open` (else 400); → accepted, money_outcome lost.
 */
export const acceptMedCase: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters }) => {
  const id = pathParameters.id;
  if (!isMedCaseId(id)) throw new NotFound('No such MED case.');
  return { status: 200, body: serializeMedCase(await accept(principal, id)) };
};
