/**
 * SES unreachable: a runtime of its own whose handlers send e-mail to a closed port. A MED case
 * still opens and resolves, its webhooks still go out, and each notice is tried, then given up
 * and logged.
 */

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sentEmails } from '../helpers/email.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import { ownRuntime, ownRuntimePorts } from '../helpers/own-runtime.ts';
import { receiverPool } from '../helpers/webhook-receiver.ts';

const receivers = receiverPool();

const ports = ownRuntimePorts(380);
const baseUrl = `http://127.0.0.1:${ports.PORT}`;
// Nothing listens on port 1: every send is refused at once.
const UNREACHABLE_SES = 'http://127.0.0.1:1';

const runtime = ownRuntime(ports);

/** The runtime's log records about notices given up: event id and attempts made. */
const givenUp = (): string[] =>
  runtime
    .logged('med notice e-mail not sent; given up')
    .map((record) => `${record.eventId} after ${record.attempts}`);

describe('MED e-mails with SES unreachable', () => {
  it('opens and resolves the case and sends its webhooks; the notices are tried, given up and logged', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pix-ses-down-'));
    await runtime.start(dataDir, { SES_ENDPOINT_URL: UNREACHABLE_SES });
    // The seeded demo account has a contact e-mail (demo@example.com).
    const { test_api_key: apikey } = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'));
    const call = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
      api(path, { baseUrl, apikey, method: 'POST', headers, ...(body !== undefined && { body }) });

    const { receiver, url } = await receivers.start();
    expect(
      (await call('/v1/webhooks/endpoints', { url, events: ['med_case.created', 'med.resolved'] })).status,
    ).toBe(201);
    const charge = await call(
      '/v1/charges',
      { amount: 4_200, payment_method: 'pix' },
      { 'idempotency-key': 'ses-down-1' },
    );
    expect(charge.status).toBe(201);
    expect(
      (await call(`/v1/sandbox/charges/${charge.body.id}/pay`, { payer_document: '52998224725' })).body
        .outcome,
    ).toBe('paid');
    const opened = await call(`/v1/sandbox/charges/${charge.body.id}/med`);
    expect(opened.status).toBe(201);
    const decided = await call(`/v1/sandbox/med/cases/${opened.body.id}/decide`, { outcome: 'merchant_won' });
    expect(decided.body).toMatchObject({ status: 'closed', money_outcome: 'refunded_to_merchant' });

    // A second runtime beside the suite's: allow for a loaded machine.
    const events = (await receiver.waitFor(2, 30_000)).map((r) => JSON.parse(r.body));
    expect(events.map((e) => e.type).sort()).toEqual(['med.resolved', 'med_case.created']);
    // The first attempt and three retries each, then the notice is dropped.
    await eventually(() => expect(givenUp().sort()).toEqual(events.map((e) => `${e.id} after 4`).sort()), {
      message: 'both notices given up',
      timeoutMs: 30_000,
    });
    // The runtime's own emulator (not where its handlers send) got nothing.
    expect(await sentEmails(`http://127.0.0.1:${ports.SES_PORT}`)).toEqual([]);
  }, 120_000);
});
