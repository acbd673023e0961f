/**
 * Evidence storage really down (Part 2, "Upload grant": 503 `service_unavailable`, "Document
 * storage unavailable; evidence upload suspended"), not only the fault-injection header.
 *
 * Why not stop the S3 emulator: the suite's runtime shares it with every test file running in
 * parallel, which would fail with it. Why not a second runtime: its S3 emulator would be up.
 * So this file serves the very handlers the runtime serves (`createApiServer`,
 * infra/local/http-server.ts: the same event mapping, edge and `med` Lambda) in its own
 * process, with the S3 endpoint pointed at a closed port and the suite's real DynamoDB: the
 * `med` Lambda during an S3 outage. The grant must answer 503 and write nothing.
 */

import { describe, expect, it } from 'vitest';
import { queryCaseEvidence } from '../../shared/store/med-evidence.ts';
import { merchant } from '../helpers/charges.ts';
import { api, expectError } from '../helpers/http.ts';
import { inProcessApi } from '../helpers/in-process-api.ts';
import { openMed, paidCharge } from '../helpers/med.ts';

// Nothing listens on port 1: every S3 call is refused at once.
const DEAD_S3 = 'http://127.0.0.1:1';
const saved = { s3: process.env.AWS_ENDPOINT_URL_S3, bucket: process.env.EVIDENCE_BUCKET };

const inProcess = inProcessApi({
  before: () => {
    process.env.AWS_ENDPOINT_URL_S3 = DEAD_S3;
    process.env.EVIDENCE_BUCKET = 'pix-evidence';
  },
  after: () => {
    process.env.AWS_ENDPOINT_URL_S3 = saved.s3;
    if (saved.bucket === undefined) delete process.env.EVIDENCE_BUCKET;
    else process.env.EVIDENCE_BUCKET = saved.bucket;
  },
});

describe('evidence upload while S3 does not answer', () => {
  it('the grant is 503 service_unavailable and writes no evidence item', async () => {
    const m = await merchant();
    const chargeId = await paidCharge(m.apikey, 5_000);
    const opened = await openMed(m.apikey, chargeId);
    expect(opened.status).toBe(201);
    const caseId = opened.body.id as string;

    const reply = await api(`/v1/med/cases/${caseId}/evidence`, {
      apikey: m.apikey,
      body: { file_name: 'proof.pdf', file_size: 1_000, mime_type: 'application/pdf' },
      baseUrl: inProcess.baseUrl(),
    });
    expectError(reply, 503, 'api_error', 'service_unavailable');
    expect(reply.body.error.message).toMatch(/storage/i);
    expect(await queryCaseEvidence({ accountId: m.accountId, mode: 'test' }, caseId)).toEqual([]);
    // The same server answers what needs no storage: the outage is S3's alone.
    expect(
      (await api(`/v1/med/cases/${caseId}`, { apikey: m.apikey, baseUrl: inProcess.baseUrl() })).status,
    ).toBe(200);
  });
});
