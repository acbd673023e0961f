import { NotFound } from '#shared/domain/errors.ts';
import { decideSchema, isMedCaseId, openMedCaseSchema, serializeMedCase } from '#shared/domain/med-cases.ts';
import { parseChargeId } from '#shared/domain/pix-ids.ts';
import { parseInput } from '#shared/domain/validation.ts';
import type { KeyPrincipal, RouteHandler } from '#shared/http/types.ts';
import { decideMedCase } from '#shared/services/decide-med-case.ts';
import { openMedCase } from '#shared/services/open-med-case.ts';
import { requestMedEvidence } from '#shared/services/request-med-evidence.ts';
import { requireTestMode } from './sandbox-only.ts';

/** POST /v1/sandbox/charges/{id}/med: the payer's bank opens a MED against a paid charge → 201 med_case. */
export const simulateMedOpening: RouteHandler<KeyPrincipal> = async ({ principal, pathParameters, body }) => {
  requireTestMode(principal);
  const input = parseInput(openMedCaseSchema, body ?? {}, 'body');
  const chargeId = parseChargeId(pathParameters.id ?? '');
  if (chargeId === undefined) throw new NotFound('No such charge.');
  return {
    status: 201,
    body: serializeMedCase(await openMedCase({ scope: principal, chargeId, body: input })),
  };
};

const caseIdOf = (principal: KeyPrincipal, id: string | undefined): string => {
  requireTestMode(principal);
  if (!isMedCaseId(id)) throw new NotFound('No such MED case.');
  return id;
};

/** POST /v1/sandbox/med/cases/{id}/request-evidence: `evidence_requested_at`, `med_case.updated`. */
export const simulateMedEvidenceRequest: RouteHandler<KeyPrincipal> = async ({
  principal,
  pathParameters,
}) => {
  const id = caseIdOf(principal, pathParameters.id);
  return { status: 200, body: serializeMedCase(await requestMedEvidence(principal, id)) };
};

/**
 * POST /v1/sandbox/med/cases/{id}/decide: the MED channel's decision (`outcome`) → 200 the case
 * decided, or 202 the case unchanged when it was opened with `review` (the decision waits for
 * `npm run admin -- med-review apply`).
 */
export const simulateMedDecision: RouteHandler<KeyPrincipal> = async ({
  principal,
  pathParameters,
  body,
}) => {
  const id = caseIdOf(principal, pathParameters.id);
  const { outcome } = parseInput(decideSchema, body, 'body');
  const medCase = await decideMedCase(principal, id, outcome);
  const waits = medCase.pendingReview?.kind === 'decision';
  return { status: waits ? 202 : 200, body: serializeMedCase(medCase) };
};
