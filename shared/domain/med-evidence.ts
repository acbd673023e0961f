/**
 * MED evidence (Part 2, "MED evidence", "Upload grant"): the stored record, its public objects,
 * the declaration's schema and limits, and the rules of `complete`. Pure: the clock, ids and the
 * storage's answers are handed in.
 */

import * as v from 'valibot';
import { prefixedUuidV7 } from './pix-ids.ts';
import { oneOf } from './validation.ts';

/** Part 2, Limits: at most 10 MB. Equal to `evidenceBucket.maxFileBytes` (shared/resources.ts). */
export const EVIDENCE_MAX_BYTES = 10 * 1024 * 1024;
/** Part 2, Limits: the upload URL lives 900 s. */
export const EVIDENCE_UPLOAD_TTL_SECONDS = 900;
/**
 * A grant never confirmed is useless once its URL expires (`complete` answers 409 from then):
 * its item is kept one more day, so a late `complete` still gets that clear answer, then the
 * table's TTL removes it. Confirmed items are kept.
 */
const PENDING_EVIDENCE_KEPT_SECONDS = 24 * 3600;
export const pendingEvidenceExpiresAt = (evidence: { uploadExpiresAt: string }): number =>
  Math.floor(Date.parse(evidence.uploadExpiresAt) / 1000) + PENDING_EVIDENCE_KEPT_SECONDS;
/** Part 2, Limits: `view_url` lives 5 minutes. */
export const EVIDENCE_VIEW_TTL_SECONDS = 300;
export const EVIDENCE_MIME_TYPES = [
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'application/pdf',
] as const;
type EvidenceMimeType = (typeof EVIDENCE_MIME_TYPES)[number];

/** `medev_<UUIDv7>` (ids sort by creation). */
const MED_EVIDENCE_ID_PATTERN = prefixedUuidV7('medev_');
export const isMedEvidenceId = (id: string | undefined): id is string =>
  id !== undefined && MED_EVIDENCE_ID_PATTERN.test(id);

export interface MedEvidenceRecord {
  id: string;
  accountId: string;
  mode: 'live' | 'test';
  caseId: string;
  fileName: string;
  fileSize: number;
  mimeType: EvidenceMimeType;
  /**
   * The key the upload grant names: under the account's prefix, random (never derived from the
   * case id). Its presigned PUT stays valid after `complete`, so it is never what is read.
   */
  objectKey: string;
  /**
   * Set by `complete`: the server-side copy no grant names, which `view_url` serves, with its
   * size and ETag, so a later PUT to the upload URL cannot replace the confirmed file. Absent on
   * pending items (and on items confirmed before copies existed: those are read at `objectKey`).
   */
  stored?: { objectKey: string; size: number; etag: string };
  /** `pending` until `complete` finds the file in storage. */
  status: 'pending' | 'uploaded';
  uploadedBy: 'merchant' | 'partner' | 'platform';
  createdAt: string;
  uploadedAt: string | null;
  /** When the upload URL stops working; `complete` after it is `EVIDENCE_NOT_UPLOADED`. */
  uploadExpiresAt: string;
}

/** `POST /v1/med/cases/{id}/evidence` body. */
export const evidenceDeclarationSchema = v.strictObject({
  file_name: v.pipe(v.string(), v.minLength(1), v.maxLength(255)),
  file_size: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(EVIDENCE_MAX_BYTES)),
  mime_type: oneOf(EVIDENCE_MIME_TYPES),
});
export type EvidenceDeclaration = v.InferOutput<typeof evidenceDeclarationSchema>;

/** A new pending evidence item for a declaration. */
export function newEvidenceRecord(input: {
  id: string;
  scope: { accountId: string; mode: 'live' | 'test' };
  caseId: string;
  objectKey: string;
  declaration: EvidenceDeclaration;
  nowMs: number;
}): MedEvidenceRecord {
  const { declaration: d } = input;
  return {
    id: input.id,
    accountId: input.scope.accountId,
    mode: input.scope.mode,
    caseId: input.caseId,
    fileName: d.file_name,
    fileSize: d.file_size,
    mimeType: d.mime_type,
    objectKey: input.objectKey,
    status: 'pending',
    uploadedBy: 'merchant',
    createdAt: new Date(input.nowMs).toISOString(),
    uploadedAt: null,
    uploadExpiresAt: new Date(input.nowMs + EVIDENCE_UPLOAD_TTL_SECONDS * 1000).toISOString(),
  };
}

/** The public upload grant (`med_case_evidence_upload`). */
export const serializeUploadGrant = (evidence: MedEvidenceRecord, uploadUrl: string) => ({
  id: evidence.id,
  object: 'med_case_evidence_upload' as const,
  upload_url: uploadUrl,
  upload_method: 'PUT' as const,
  upload_headers: { 'Content-Type': evidence.mimeType, 'Content-Length': String(evidence.fileSize) },
  expires_in: EVIDENCE_UPLOAD_TTL_SECONDS,
});

/** The public `med_case_evidence` object. */
export const serializeEvidence = (evidence: MedEvidenceRecord, viewUrl: string) => ({
  id: evidence.id,
  object: 'med_case_evidence' as const,
  file_name: evidence.fileName,
  file_size: evidence.fileSize,
  mime_type: evidence.mimeType,
  uploaded_by: evidence.uploadedBy,
  created_at: evidence.createdAt,
  uploaded_at: evidence.uploadedAt,
  view_url: viewUrl,
});
export type MedEvidenceObject = ReturnType<typeof serializeEvidence>;

export type CompletionCheck =
  | { outcome: 'confirm' }
  | { outcome: 'notUploaded' }
  | { outcome: 'sizeMismatch'; storedSize: number };

/**
 * What `complete` decides for a pending item from what storage holds (`storedSize`: the object's
 * size, undefined when absent): after the grant's expiry or without the file, not uploaded; a
 * file of another size than declared, a mismatch; else confirmed.
 */
export function checkCompletion(
  evidence: MedEvidenceRecord,
  storedSize: number | undefined,
  nowMs: number,
): CompletionCheck {
  if (nowMs > Date.parse(evidence.uploadExpiresAt) || storedSize === undefined)
    return { outcome: 'notUploaded' };
  if (storedSize !== evidence.fileSize) return { outcome: 'sizeMismatch', storedSize };
  return { outcome: 'confirm' };
}

/** Where the confirmed file is read (`view_url`): its copy, else (older items) the upload key. */
export const viewObjectKey = (evidence: MedEvidenceRecord): string =>
  evidence.stored?.objectKey ?? evidence.objectKey;

/** Confirmed evidence, newest first (by creation; ids are UUIDv7). */
export const confirmedNewestFirst = (items: MedEvidenceRecord[]): MedEvidenceRecord[] =>
  items
    .filter((e) => e.status === 'uploaded')
    .sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );
