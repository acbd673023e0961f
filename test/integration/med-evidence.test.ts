/**
 * MED evidence over HTTP (Part 2, "MED evidence", "Upload grant"): the three steps against the
 * local S3 emulator, which checks the presigned signature (type and size bound), `complete`'s
 * 409s and idempotency, the list of confirmed evidence with working `view_url`s,
 * `evidence_count`, the 400s with `param`, tenant isolation, 503 when storage is unavailable and
 * the `/v1/infractions` alias.
 */

import { createHash } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { MerchantScope } from '../../shared/domain/scope.ts';
import { evidenceBucket } from '../../shared/resources.ts';
import { db, tableName, transactRetryingConflicts } from '../../shared/store/client.ts';
import { evidenceObjectKey, evidenceStoredObjectKey, medEvidenceKey } from '../../shared/store/keys.ts';
import { getMedCase, replaceMedCaseItem } from '../../shared/store/med-cases.ts';
import { confirmEvidenceItems, getEvidence, queryCaseEvidence } from '../../shared/store/med-evidence.ts';
import { merchant } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';
import { openMed, paidCharge } from '../helpers/med.ts';

const EVIDENCE_ID = /^medev_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BUCKET = 'pix-evidence';

const s3 = new S3Client({
  forcePathStyle: true,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});

/** A merchant with a MED case opened against one of its paid charges. */
async function withCase() {
  const m = await merchant();
  const chargeId = await paidCharge(m.apikey, 5_000);
  const opened = await openMed(m.apikey, chargeId);
  expect(opened.status).toBe(201);
  return { ...m, caseId: opened.body.id as string };
}

/** The random token of `key` when `build` (a key builder of store/keys.ts) made it for `scope`. */
const tokenOf = (
  key: string | undefined,
  build: (scope: MerchantScope, token: string) => string,
  scope: MerchantScope,
): string | undefined => {
  const folder = build(scope, '');
  return key?.startsWith(folder) ? key.slice(folder.length) : undefined;
};
const TOKEN = /^[0-9a-f]{32}$/;

const bytes = (size: number, seed = 7) =>
  Buffer.from(Array.from({ length: size }, (_, i) => (i * seed) % 256));

const grant = (apikey: string, caseId: string, body: unknown, prefix = '/v1/med/cases', headers = {}) =>
  api(`${prefix}/${caseId}/evidence`, { apikey, method: 'POST', body, headers });
const complete = (
  apikey: string,
  caseId: string,
  evidenceId: string,
  prefix = '/v1/med/cases',
  headers = {},
) => api(`${prefix}/${caseId}/evidence/${evidenceId}/complete`, { apikey, method: 'POST', headers });
/** `complete` refused with 409 `code`, under the `/v1/infractions` alias too. */
async function expectCompleteRefused(apikey: string, caseId: string, evidenceId: string, code: string) {
  for (const base of ['/v1/med/cases', '/v1/infractions'])
    expectError(await complete(apikey, caseId, evidenceId, base), 409, 'conflict_error', code);
}
const listEvidence = (apikey: string, caseId: string, prefix = '/v1/med/cases') =>
  api(`${prefix}/${caseId}/evidence`, { apikey });

/** PUT to the presigned URL (no API key), with the given headers. */
const upload = (url: string, body: Buffer, headers: Record<string, string>) =>
  fetch(url, { method: 'PUT', body, headers });

/** Grant, upload with exactly the granted headers, complete: the confirmed evidence. */
async function uploaded(apikey: string, caseId: string, file = bytes(1_000), mime = 'application/pdf') {
  const g = await grant(apikey, caseId, { file_name: 'proof.pdf', file_size: file.length, mime_type: mime });
  expect(g.status).toBe(201);
  expect((await upload(g.body.upload_url, file, g.body.upload_headers)).status).toBe(200);
  const done = await complete(apikey, caseId, g.body.id);
  expect(done.status).toBe(200);
  return done.body;
}

describe('evidence upload (three steps)', () => {
  it('grants a presigned PUT bound to type and size; complete confirms it once', async () => {
    const m = await withCase();
    const file = bytes(2_345);
    const g = await grant(m.apikey, m.caseId, {
      file_name: 'comprovante.png',
      file_size: file.length,
      mime_type: 'image/png',
    });
    expect(g.status).toBe(201);
    expect(g.body).toEqual({
      id: expect.stringMatching(EVIDENCE_ID),
      object: 'med_case_evidence_upload',
      upload_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/pix-evidence\//),
      upload_method: 'PUT',
      upload_headers: { 'Content-Type': 'image/png', 'Content-Length': String(file.length) },
      expires_in: 900,
    });
    // The object key is under the uploads prefix (which the bucket's lifecycle expires), then the
    // account's and a random token, not derived from the case or evidence id.
    const scope = { accountId: m.accountId, mode: 'test' } as const;
    const stored = await getEvidence(scope, m.caseId, g.body.id);
    expect(stored?.status).toBe('pending');
    expect(tokenOf(stored?.objectKey, evidenceObjectKey, scope)).toMatch(TOKEN);
    expect(stored?.objectKey.startsWith(evidenceBucket.uploadKeyPrefix)).toBe(true);
    expect(stored?.objectKey.startsWith(evidenceBucket.storedKeyPrefix)).toBe(false);
    expect(stored?.objectKey).not.toContain(m.caseId.slice(4));
    expect(stored?.objectKey).not.toContain(g.body.id.slice(6));
    expect(new URL(g.body.upload_url).pathname).toBe(`/${BUCKET}/${stored?.objectKey}`);
    // A pending grant is removed by TTL a day after its URL expires; a confirmed one is kept.
    const key = medEvidenceKey({ accountId: m.accountId, mode: 'test' }, m.caseId, g.body.id);
    const ttlOf = async () =>
      (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item
        ?.expiresAt;
    expect(await ttlOf()).toBe(Math.floor(Date.parse(stored?.uploadExpiresAt ?? '') / 1000) + 86_400);

    // Complete before the upload: not uploaded (under the /v1/infractions alias too).
    await expectCompleteRefused(m.apikey, m.caseId, g.body.id, 'EVIDENCE_NOT_UPLOADED');

    // The storage refuses another Content-Type, or another size (the signature binds both).
    const wrongType = await upload(g.body.upload_url, file, { 'Content-Type': 'image/jpeg' });
    expect(await wrongType.text()).toContain('SignatureDoesNotMatch');
    expect((await upload(g.body.upload_url, file, { 'Content-Type': 'image/jpeg' })).status).toBe(403);
    expect(
      (await upload(g.body.upload_url, bytes(file.length - 1), { 'Content-Type': 'image/png' })).status,
    ).toBe(403);
    expectError(
      await complete(m.apikey, m.caseId, g.body.id),
      409,
      'conflict_error',
      'EVIDENCE_NOT_UPLOADED',
    );

    // Exactly the granted headers: accepted.
    expect((await upload(g.body.upload_url, file, g.body.upload_headers)).status).toBe(200);
    const first = await complete(m.apikey, m.caseId, g.body.id);
    expect(first.status).toBe(200);
    expect(await ttlOf()).toBeUndefined();
    expect(first.body).toEqual({
      id: g.body.id,
      object: 'med_case_evidence',
      file_name: 'comprovante.png',
      file_size: file.length,
      mime_type: 'image/png',
      uploaded_by: 'merchant',
      created_at: expect.any(String),
      uploaded_at: expect.any(String),
      view_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/pix-evidence\//),
    });
    const download = await fetch(first.body.view_url);
    expect(download.status).toBe(200);
    // A download, never rendered inline: the bytes are the merchant's.
    expect(download.headers.get('content-disposition')).toBe('attachment');
    expect(Buffer.from(await download.arrayBuffer()).equals(file)).toBe(true);
    // The confirmed copy, what view_url serves, is under the accounts prefix (kept), not uploads.
    const confirmed = await getEvidence(scope, m.caseId, g.body.id);
    expect(tokenOf(confirmed?.stored?.objectKey, evidenceStoredObjectKey, scope)).toMatch(TOKEN);
    expect(confirmed?.stored?.objectKey.startsWith(evidenceBucket.storedKeyPrefix)).toBe(true);
    expect(confirmed?.stored?.objectKey.startsWith(evidenceBucket.uploadKeyPrefix)).toBe(false);
    expect(new URL(first.body.view_url).pathname).toBe(`/${BUCKET}/${confirmed?.stored?.objectKey}`);

    // Idempotent: the same evidence, counted once.
    const second = await complete(m.apikey, m.caseId, g.body.id);
    expect(second.status).toBe(200);
    expect({ ...second.body, view_url: undefined }).toEqual({ ...first.body, view_url: undefined });
    expect((await api(`/v1/med/cases/${m.caseId}`, { apikey: m.apikey })).body.evidence_count).toBe(1);
  });

  it('a stored file smaller than declared: 409 EVIDENCE_SIZE_MISMATCH, nothing confirmed', async () => {
    const m = await withCase();
    const g = await grant(m.apikey, m.caseId, {
      file_name: 'a.pdf',
      file_size: 500,
      mime_type: 'application/pdf',
    });
    expect(g.status).toBe(201);
    const stored = await getEvidence({ accountId: m.accountId, mode: 'test' }, m.caseId, g.body.id);
    // The presigned URL cannot store another size: write a smaller object straight to storage.
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: stored?.objectKey,
        Body: bytes(400),
        ContentType: 'application/pdf',
      }),
    );
    await expectCompleteRefused(m.apikey, m.caseId, g.body.id, 'EVIDENCE_SIZE_MISMATCH');
    expect((await listEvidence(m.apikey, m.caseId)).body.data).toEqual([]);
    expect((await api(`/v1/med/cases/${m.caseId}`, { apikey: m.apikey })).body.evidence_count).toBe(0);
  });

  it('complete after the grant expired: 409 EVIDENCE_NOT_UPLOADED even with the file in storage', async () => {
    const m = await withCase();
    const file = bytes(300);
    const g = await grant(m.apikey, m.caseId, { file_name: 'x.gif', file_size: 300, mime_type: 'image/gif' });
    expect((await upload(g.body.upload_url, file, g.body.upload_headers)).status).toBe(200);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: medEvidenceKey({ accountId: m.accountId, mode: 'test' }, m.caseId, g.body.id),
        UpdateExpression: 'SET uploadExpiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1_000).toISOString() },
      }),
    );
    expectError(
      await complete(m.apikey, m.caseId, g.body.id),
      409,
      'conflict_error',
      'EVIDENCE_NOT_UPLOADED',
    );
  });

  it('an upload the lifecycle removed: 409 EVIDENCE_NOT_UPLOADED, nothing confirmed', async () => {
    // The local S3 emulator runs no lifecycle rule: the upload is deleted as its expiry would.
    const m = await withCase();
    const scope = { accountId: m.accountId, mode: 'test' } as const;
    const g = await grant(m.apikey, m.caseId, {
      file_name: 'e.pdf',
      file_size: 40,
      mime_type: 'application/pdf',
    });
    expect((await upload(g.body.upload_url, bytes(40), g.body.upload_headers)).status).toBe(200);
    const pending = await getEvidence(scope, m.caseId, g.body.id);
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: pending?.objectKey }));
    expectError(
      await complete(m.apikey, m.caseId, g.body.id),
      409,
      'conflict_error',
      'EVIDENCE_NOT_UPLOADED',
    );
    // As it happens on AWS: the grant is long past too (the item is kept a day after it).
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: medEvidenceKey(scope, m.caseId, g.body.id),
        UpdateExpression: 'SET uploadExpiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 86_400_000).toISOString() },
      }),
    );
    expectError(
      await complete(m.apikey, m.caseId, g.body.id),
      409,
      'conflict_error',
      'EVIDENCE_NOT_UPLOADED',
    );
    expect((await getEvidence(scope, m.caseId, g.body.id))?.status).toBe('pending');
    expect((await listEvidence(m.apikey, m.caseId)).body.data).toEqual([]);
    expect((await api(`/v1/med/cases/${m.caseId}`, { apikey: m.apikey })).body.evidence_count).toBe(0);
  });
});

describe('concurrent confirmations', () => {
  it('five concurrent completes answer the same evidence and count it once', async () => {
    const m = await withCase();
    const file = bytes(50);
    const g = await grant(m.apikey, m.caseId, { file_name: 'c.png', file_size: 50, mime_type: 'image/png' });
    expect((await upload(g.body.upload_url, file, g.body.upload_headers)).status).toBe(200);
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => complete(m.apikey, m.caseId, g.body.id)),
    );
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(replies.map((r) => r.body.uploaded_at)).size).toBe(1);
    expect((await api(`/v1/med/cases/${m.caseId}`, { apikey: m.apikey })).body.evidence_count).toBe(1);
  });

  it('a PUT to the upload URL after complete cannot replace the confirmed file', async () => {
    // The presigned PUT stays valid 900 s: complete serves a server-side copy no grant names.
    const m = await withCase();
    const first = bytes(300, 3);
    const second = bytes(300, 11); // same size and type: the signature accepts it
    const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(sha256(first)).not.toBe(sha256(second));
    const g = await grant(m.apikey, m.caseId, {
      file_name: 'x.pdf',
      file_size: 300,
      mime_type: 'application/pdf',
    });
    expect((await upload(g.body.upload_url, first, g.body.upload_headers)).status).toBe(200);
    const done = await complete(m.apikey, m.caseId, g.body.id);
    expect(done.status).toBe(200);
    expect((await upload(g.body.upload_url, second, g.body.upload_headers)).status).toBe(200);

    const served = async (url: string) => sha256(Buffer.from(await (await fetch(url)).arrayBuffer()));
    expect(await served(done.body.view_url)).toBe(sha256(first));
    const again = await complete(m.apikey, m.caseId, g.body.id);
    expect(again.status).toBe(200);
    expect({ ...again.body, view_url: '' }).toEqual({ ...done.body, view_url: '' });
    expect(await served(again.body.view_url)).toBe(sha256(first));
    const listed = (await listEvidence(m.apikey, m.caseId)).body.data;
    expect(listed.map((e: { id: string }) => e.id)).toEqual([g.body.id]);
    expect(await served(listed[0].view_url)).toBe(sha256(first));
    // The copy is recorded with its size and ETag, at a key the grant does not name.
    const stored = await getEvidence({ accountId: m.accountId, mode: 'test' }, m.caseId, g.body.id);
    expect(stored?.stored).toMatchObject({
      size: 300,
      etag: `"${createHash('md5').update(first).digest('hex')}"`,
    });
    expect(stored?.stored?.objectKey).not.toBe(stored?.objectKey);
    expect(g.body.upload_url).not.toContain(stored?.stored?.objectKey);
    expect((await api(`/v1/med/cases/${m.caseId}`, { apikey: m.apikey })).body.evidence_count).toBe(1);
  });

  it('an appeal racing a confirmation keeps both: appealed, evidence_count 1', async () => {
    const m = await withCase();
    const g = await grant(m.apikey, m.caseId, {
      file_name: 'r.pdf',
      file_size: 20,
      mime_type: 'application/pdf',
    });
    expect((await upload(g.body.upload_url, bytes(20), g.body.upload_headers)).status).toBe(200);
    const [appealed, done] = await Promise.all([
      api(`/v1/med/cases/${m.caseId}/appeal`, { apikey: m.apikey, body: { reason: 'Here is the proof' } }),
      complete(m.apikey, m.caseId, g.body.id),
    ]);
    expect([appealed.status, done.status]).toEqual([200, 200]);
    const read = (await api(`/v1/med/cases/${m.caseId}`, { apikey: m.apikey })).body;
    expect(read).toMatchObject({ status: 'appealed', evidence_count: 1 });
  });
  it('a case step read before a confirmation in the same millisecond loses its condition, so the count stays', async () => {
    const m = await withCase();
    const scope: MerchantScope = { accountId: m.accountId, mode: 'test' };
    const g = await grant(m.apikey, m.caseId, {
      file_name: 's.pdf',
      file_size: 20,
      mime_type: 'application/pdf',
    });
    const read = await getMedCase(scope, m.caseId);
    const evidence = await getEvidence(scope, m.caseId, g.body.id);
    if (!read || !evidence) throw new Error('case or evidence missing');
    // The confirmation commits at the very millisecond the case was last written and read at.
    const stored = { objectKey: 'same-millisecond', size: 20, etag: '"0"' };
    expect(await transactRetryingConflicts(confirmEvidenceItems(evidence, read.updatedAt, stored))).toEqual({
      committed: true,
    });
    // A step decided on the case as read before it (an appeal) must not write its old count back.
    const appeal = replaceMedCaseItem({ ...read, status: 'appealed' }, read.status, read);
    expect(await transactRetryingConflicts({ medCase: appeal })).toMatchObject({
      committed: false,
      failed: ['medCase'],
    });
    expect((await api(`/v1/med/cases/${m.caseId}`, { apikey: m.apikey })).body).toMatchObject({
      status: 'open',
      evidence_count: 1,
    });
  });
});

describe('evidence list and count', () => {
  it('lists confirmed evidence only, newest first, each view_url downloading its bytes', async () => {
    const m = await withCase();
    const fileA = bytes(111, 3);
    const fileB = bytes(222, 5);
    const a = await uploaded(m.apikey, m.caseId, fileA, 'image/jpeg');
    const b = await uploaded(m.apikey, m.caseId, fileB, 'image/webp');
    // A pending grant (never uploaded) and one never completed: neither listed nor counted.
    await grant(m.apikey, m.caseId, { file_name: 'p.png', file_size: 10, mime_type: 'image/png' });
    const notCompleted = await grant(m.apikey, m.caseId, {
      file_name: 'q.png',
      file_size: 10,
      mime_type: 'image/png',
    });
    expect(
      (await upload(notCompleted.body.upload_url, bytes(10), notCompleted.body.upload_headers)).status,
    ).toBe(200);
    expect(await queryCaseEvidence({ accountId: m.accountId, mode: 'test' }, m.caseId)).toHaveLength(4);

    const list = await listEvidence(m.apikey, m.caseId);
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([b.id, a.id]);
    for (const [item, file] of [
      [list.body.data[0], fileB],
      [list.body.data[1], fileA],
    ] as const) {
      const url = new URL(item.view_url);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
      const download = await fetch(item.view_url);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(file)).toBe(true);
    }
    expect((await api(`/v1/med/cases/${m.caseId}`, { apikey: m.apikey })).body.evidence_count).toBe(2);
  });

  it('the upload URL lives 900 s', async () => {
    const m = await withCase();
    const g = await grant(m.apikey, m.caseId, {
      file_name: 'f.pdf',
      file_size: 1,
      mime_type: 'application/pdf',
    });
    expect(new URL(g.body.upload_url).searchParams.get('X-Amz-Expires')).toBe('900');
  });
});

describe('evidence validation, isolation, alias, storage down', () => {
  it('400 with param for every invalid declaration field', async () => {
    const m = await withCase();
    const ok = { file_name: 'doc.pdf', file_size: 100, mime_type: 'application/pdf' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ok, file_name: undefined }, 'file_name'],
      [{ ...ok, file_name: '' }, 'file_name'],
      [{ ...ok, file_name: 'x'.repeat(256) }, 'file_name'],
      [{ ...ok, file_size: undefined }, 'file_size'],
      [{ ...ok, file_size: 0 }, 'file_size'],
      [{ ...ok, file_size: 1.5 }, 'file_size'],
      [{ ...ok, file_size: '100' }, 'file_size'],
      [{ ...ok, file_size: 10 * 1024 * 1024 + 1 }, 'file_size'],
      [{ ...ok, mime_type: 'image/svg+xml' }, 'mime_type'],
      [{ ...ok, mime_type: undefined }, 'mime_type'],
    ];
    for (const [body, param] of cases) {
      const reply = await grant(m.apikey, m.caseId, body);
      expectError(reply, 400, 'invalid_request_error', 'invalid_request');
      expect(reply.body.error.param, JSON.stringify(body).slice(0, 80)).toBe(param);
    }
    // The limits themselves are accepted.
    expect((await grant(m.apikey, m.caseId, { ...ok, file_size: 10 * 1024 * 1024 })).status).toBe(201);
    expect((await grant(m.apikey, m.caseId, { ...ok, file_name: 'x'.repeat(255) })).status).toBe(201);
    for (const mime of ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'application/pdf'])
      expect((await grant(m.apikey, m.caseId, { ...ok, mime_type: mime })).status).toBe(201);
  });

  it("another account's case or evidence: 404 on every route", async () => {
    const m = await withCase();
    const e = await uploaded(m.apikey, m.caseId);
    const other = await withCase();
    const ok = { file_name: 'doc.pdf', file_size: 100, mime_type: 'application/pdf' };
    expectError(await grant(other.apikey, m.caseId, ok), 404, 'not_found_error', 'not_found');
    expectError(await listEvidence(other.apikey, m.caseId), 404, 'not_found_error', 'not_found');
    expectError(await complete(other.apikey, m.caseId, e.id), 404, 'not_found_error', 'not_found');
    // The evidence under the other merchant's own case: still not theirs.
    expectError(await complete(other.apikey, other.caseId, e.id), 404, 'not_found_error', 'not_found');
    // Unknown or malformed ids.
    expectError(await listEvidence(m.apikey, 'med_nope'), 404, 'not_found_error', 'not_found');
    expectError(await complete(m.apikey, m.caseId, 'medev_nope'), 404, 'not_found_error', 'not_found');
    expectError(
      await complete(m.apikey, m.caseId, 'medev_01900000-0000-7000-8000-000000000000'),
      404,
      'not_found_error',
      'not_found',
    );
    expect((await listEvidence(other.apikey, other.caseId)).body.data).toEqual([]);
  });

  it('the /v1/infractions alias serves the three steps', async () => {
    const m = await withCase();
    const file = bytes(64);
    const g = await grant(
      m.apikey,
      m.caseId,
      { file_name: 'a.png', file_size: 64, mime_type: 'image/png' },
      '/v1/infractions',
    );
    expect(g.status).toBe(201);
    expect((await upload(g.body.upload_url, file, g.body.upload_headers)).status).toBe(200);
    const done = await complete(m.apikey, m.caseId, g.body.id, '/v1/infractions');
    expect(done.status).toBe(200);
    const list = await listEvidence(m.apikey, m.caseId, '/v1/infractions');
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([g.body.id]);
    expect((await api(`/v1/infractions/${m.caseId}`, { apikey: m.apikey })).body.evidence_count).toBe(1);
  });

  it('storage unavailable: 503 service_unavailable and nothing written', async () => {
    const m = await withCase();
    const fault = { 'x-fault-inject': 'evidence-storage' };
    const body = { file_name: 'a.pdf', file_size: 10, mime_type: 'application/pdf' };
    for (const base of ['/v1/med/cases', '/v1/infractions'])
      expectError(
        await grant(m.apikey, m.caseId, body, base, fault),
        503,
        'api_error',
        'service_unavailable',
      );
    expect(await queryCaseEvidence({ accountId: m.accountId, mode: 'test' }, m.caseId)).toEqual([]);
    const g = await grant(m.apikey, m.caseId, body);
    expect((await upload(g.body.upload_url, bytes(10), g.body.upload_headers)).status).toBe(200);
    for (const base of ['/v1/med/cases', '/v1/infractions'])
      expectError(
        await complete(m.apikey, m.caseId, g.body.id, base, fault),
        503,
        'api_error',
        'service_unavailable',
      );
    const stored = await getEvidence({ accountId: m.accountId, mode: 'test' }, m.caseId, g.body.id);
    expect(stored?.status).toBe('pending');
    expect((await api(`/v1/med/cases/${m.caseId}`, { apikey: m.apikey })).body.evidence_count).toBe(0);
  });
});
