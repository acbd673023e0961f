import { createApiHandler } from '#shared/http/api-handler.ts';
import { acceptMedCase } from './accept-med-case.ts';
import { appealMedCase } from './appeal-med-case.ts';
import { getMedCase } from './get-med-case.ts';
import { listMedCases } from './list-med-cases.ts';

// `/v1/infractions` is an alias (Part 2): the same handlers under their own route ids.
export const handler = createApiHandler('med', {
  listMedCases,
  getMedCase,
  appealMedCase,
  acceptMedCase,
  listInfractions: listMedCases,
  getInfraction: getMedCase,
  appealInfraction: appealMedCase,
  acceptInfraction: acceptMedCase,
});
