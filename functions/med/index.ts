import { createApiHandler } from '#shared/http/api-handler.ts';
import { withInfractionAliases } from '#shared/routes.ts';
import { acceptMedCase } from './accept-med-case.ts';
import { appealMedCase } from './appeal-med-case.ts';
import { completeEvidenceUpload } from './complete-evidence-upload.ts';
import { createEvidenceUpload } from './create-evidence-upload.ts';
import { getMedCase } from './get-med-case.ts';
import { listMedCases } from './list-med-cases.ts';
import { listMedEvidence } from './list-med-evidence.ts';

// `/v1/infractions` serves the same handlers under their own route ids (Part 2).
export const handler = createApiHandler(
  'med',
  withInfractionAliases({
    listMedCases,
    getMedCase,
    appealMedCase,
    acceptMedCase,
    listMedEvidence,
    createEvidenceUpload,
    completeEvidenceUpload,
  }),
);
