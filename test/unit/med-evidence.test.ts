import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  checkCompletion,
  confirmedNewestFirst,
  EVIDENCE_MAX_BYTES,
  EVIDENCE_UPLOAD_TTL_SECONDS,
  evidenceDeclarationSchema,
  type MedEvidenceRecord,
  newEvidenceRecord,
  serializeUploadGrant,
} from '../../shared/domain/med-evidence.ts';
import { evidenceBucket } from '../../shared/resources.ts';
import { evidenceObjectKey, evidenceStoredObjectKey } from '../../shared/store/keys.ts';

const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const pending = (over: Partial<MedEvidenceRecord> = {}): MedEvidenceRecord => ({
  ...newEvidenceRecord({
    id: 'medev_0193a1b2-0000-7000-8000-000000000001',
    scope: { accountId: 'acc', mode: 'test' },
    caseId: 'med_0193a1b2-0000-7000-8000-000000000000',
    objectKey: 'accounts/acc/test/evidence/abc',
    declaration: { file_name: 'a.pdf', file_size: 100, mime_type: 'application/pdf' },
    nowMs: NOW,
  }),
  ...over,
});

describe('MED evidence rules', () => {
  it('the domain limits are the bucket definition', () => {
    expect(EVIDENCE_MAX_BYTES).toBe(evidenceBucket.maxFileBytes);
    expect(EVIDENCE_UPLOAD_TTL_SECONDS).toBe(evidenceBucket.uploadUrlTtlSeconds);
  });

  it('a new record is pending, by the merchant, expiring 900 s later', () => {
    const e = pending();
    expect(e).toMatchObject({ status: 'pending', uploadedBy: 'merchant', uploadedAt: null });
    expect(Date.parse(e.uploadExpiresAt) - NOW).toBe(900_000);
    expect(serializeUploadGrant(e, 'http://u').upload_headers).toEqual({
      'Content-Type': 'application/pdf',
      'Content-Length': '100',
    });
  });

  it('complete: absent or expired → not uploaded; other size → mismatch; else confirm', () => {
    const e = pending();
    expect(checkCompletion(e, undefined, NOW)).toEqual({ outcome: 'notUploaded' });
    expect(checkCompletion(e, 100, NOW + 900_001)).toEqual({ outcome: 'notUploaded' });
    expect(checkCompletion(e, 99, NOW)).toEqual({ outcome: 'sizeMismatch', storedSize: 99 });
    expect(checkCompletion(e, 100, NOW + 900_000)).toEqual({ outcome: 'confirm' });
  });

  it('lists confirmed only, newest first', () => {
    const a = pending({ id: 'medev_a', status: 'uploaded', createdAt: '2026-11-22T12:00:00.000Z' });
    const b = pending({ id: 'medev_b', status: 'uploaded', createdAt: '2026-11-22T12:00:01.000Z' });
    const c = pending({ id: 'medev_c', createdAt: '2026-11-22T12:00:02.000Z' });
    expect(confirmedNewestFirst([a, c, b]).map((e) => e.id)).toEqual(['medev_b', 'medev_a']);
  });

  it('the declaration: 1–255 name, 1..10 MB integer size, five MIME types', () => {
    const ok = { file_name: 'x', file_size: 1, mime_type: 'image/png' };
    expect(v.safeParse(evidenceDeclarationSchema, ok).success).toBe(true);
    expect(v.safeParse(evidenceDeclarationSchema, { ...ok, file_size: EVIDENCE_MAX_BYTES }).success).toBe(
      true,
    );
    for (const bad of [
      { ...ok, file_size: EVIDENCE_MAX_BYTES + 1 },
      { ...ok, file_size: 0 },
      { ...ok, file_name: '' },
      { ...ok, file_name: 'x'.repeat(256) },
      { ...ok, mime_type: 'text/plain' },
      { ...ok, extra: 1 },
    ])
      expect(v.safeParse(evidenceDeclarationSchema, bad).success).toBe(false);
  });

  it('uploads sit under their own prefix (which expires), confirmed copies under the accounts one', () => {
    expect(evidenceObjectKey({ accountId: 'acc', mode: 'live' }, 'f00d')).toBe('uploads/acc/live/f00d');
    expect(evidenceStoredObjectKey({ accountId: 'acc', mode: 'live' }, 'f00d')).toBe(
      'accounts/acc/live/evidence-stored/f00d',
    );
  });
});
