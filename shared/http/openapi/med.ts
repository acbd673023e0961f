/** `med` group: MED (Pix dispute) cases and their evidence (Part 2); `/v1/infractions` serves the same. */

import * as v from 'valibot';
import {
  appealSchema,
  listMedCasesSchema,
  medCaseStatuses,
  medCaseTypes,
  moneyOutcomes,
} from '../../domain/med-cases.ts';
import { EVIDENCE_MIME_TYPES, evidenceDeclarationSchema } from '../../domain/med-evidence.ts';
import { withInfractionAliases } from '../../routes.ts';
import { Amount, Count, Currency, NullableTimestamp, Timestamp } from './common.ts';
import type { Operation, Operations } from './operation.ts';

export const MedCase = v.strictObject({
  id: v.pipe(v.string(), v.startsWith('med_')),
  object: v.literal('med_case'),
  type: v.picklist(medCaseTypes),
  status: v.picklist(medCaseStatuses),
  amount: Amount,
  currency: Currency,
  charge_id: v.pipe(v.string(), v.startsWith('ch_')),
  reason: v.nullable(v.string()),
  /** As the payer's bank gave it (ISO 8601). */
  response_deadline: v.nullable(v.string()),
  evidence_requested_at: NullableTimestamp,
  appeal_reason: v.nullable(v.string()),
  appealed_at: NullableTimestamp,
  evidence_count: Count,
  money_outcome: v.nullable(v.picklist(moneyOutcomes)),
  opened_at: Timestamp,
  closed_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const MedEvidenceUpload = v.strictObject({
  id: v.pipe(v.string(), v.startsWith('medev_')),
  object: v.literal('med_case_evidence_upload'),
  upload_url: v.pipe(v.string(), v.url()),
  upload_method: v.literal('PUT'),
  /** Send exactly these with the PUT: storage refuses another type or size. */
  upload_headers: v.strictObject({
    'Content-Type': v.picklist(EVIDENCE_MIME_TYPES),
    'Content-Length': v.pipe(v.string(), v.digits()),
  }),
  expires_in: Count,
});

export const MedEvidence = v.strictObject({
  id: v.pipe(v.string(), v.startsWith('medev_')),
  object: v.literal('med_case_evidence'),
  file_name: v.string(),
  file_size: Count,
  mime_type: v.picklist(EVIDENCE_MIME_TYPES),
  uploaded_by: v.picklist(['merchant', 'partner', 'platform']),
  created_at: Timestamp,
  uploaded_at: NullableTimestamp,
  /** Downloads the file for 5 minutes. */
  view_url: v.pipe(v.string(), v.url()),
});

const listMedCases: Operation = {
  summary: 'List MED cases',
  description:
    'Newest first, cursor paging (`starting_after` = the previous `next_cursor`); `created_after`/`created_before` are exclusive. Reconcile daily with `created_after`.',
  query: listMedCasesSchema,
  responses: {
    200: {
      description: 'A page of cases.',
      schema: v.strictObject({
        object: v.literal('list'),
        data: v.array(MedCase),
        has_more: v.boolean(),
        next_cursor: v.nullable(v.string()),
      }),
    },
  },
};

const getMedCase: Operation = {
  summary: 'Retrieve a MED case',
  responses: { 200: { description: 'The case.', schema: MedCase } },
};

const appealMedCase: Operation = {
  summary: 'Appeal a MED case',
  description: 'Only while the case is `open` (400 otherwise). Unknown fields are 400.',
  body: appealSchema,
  responses: { 200: { description: 'The appealed case.', schema: MedCase } },
};

const acceptMedCase: Operation = {
  summary: 'Accept a MED case',
  description:
    'No body (any field is 400 with `param` naming it). Only while the case is `open` (400 otherwise): the retained money goes back to the payer. 400 `med_case_under_review` while its reported amount waits for an operations review.',
  responses: { 200: { description: 'The accepted case.', schema: MedCase } },
  errors: { 400: ['invalid_request', 'med_case_under_review'] },
};

const listMedEvidence: Operation = {
  summary: 'List a case’s evidence',
  description: 'Confirmed uploads only, newest first.',
  responses: {
    200: {
      description: 'The evidence.',
      schema: v.strictObject({ object: v.literal('list'), data: v.array(MedEvidence) }),
    },
  },
};

const createEvidenceUpload: Operation = {
  summary: 'Declare an evidence file',
  description:
    'Step 1 of 3: a presigned upload URL valid 900 s. PNG, JPEG, WebP, GIF or PDF, at most 10 MB. Then PUT the bytes with exactly `upload_headers`, then `complete`.',
  body: evidenceDeclarationSchema,
  responses: { 201: { description: 'The upload grant.', schema: MedEvidenceUpload } },
  errors: { 503: ['service_unavailable'] },
};

const completeEvidenceUpload: Operation = {
  summary: 'Confirm an evidence upload',
  description: 'Step 3 of 3: checks the stored object (idempotent).',
  responses: { 200: { description: 'The confirmed evidence.', schema: MedEvidence } },
  errors: { 409: ['EVIDENCE_NOT_UPLOADED', 'EVIDENCE_SIZE_MISMATCH'], 503: ['service_unavailable'] },
};

export const medOperations: Operations<'med'> = withInfractionAliases({
  listMedCases,
  getMedCase,
  appealMedCase,
  acceptMedCase,
  listMedEvidence,
  createEvidenceUpload,
  completeEvidenceUpload,
});
