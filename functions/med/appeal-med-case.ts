import { NotFound } from '#shared/domain/errors.ts';
import { appealSchema, isMedCaseId, serializeMedCase } from '#shared/domain/med-cases.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { appealMedCase as appeal } from '#shared/services/appeal-med-case.ts';

/** POST /v1/med/cases/{id}/appeal: `reason` 5–2000 characters; only from `open` (else 400). */
export const appealMedCase: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters, body }) => {
  const { reason } = parseInput(appealSchema, body, 'body');
  const id = pathParameters.id;
  if (!isMedCaseId(id)) throw new NotFound('No such MED case.');
  return { status: 200, body: serializeMedCase(await appeal(principal, id, reason)) };
};
