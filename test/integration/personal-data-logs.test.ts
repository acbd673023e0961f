/**
 * Personal data never reaches the logs (LGPD): a runtime of its own goes through a charge's whole
 * life (checkout, payment, receipt, refund, webhooks, a MED case with appeal, evidence and
 * decision) with a payer's CPF, name, e-mail and phone in every field that takes them, and its
 * output (every log line, the banner included) and its metrics carry none of them. Its SES
 * refuses every message as Amazon SES does for an address it has not verified (the sandbox every
 * new account starts in), naming the address in the error text, which the outbox logs: the text
 * stays, the address is masked.
 */

import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminWithEnv } from '../helpers/admin.ts';
import { eventually } from '../helpers/eventually.ts';
import { api } from '../helpers/http.ts';
import { ownRuntime, ownRuntimePorts } from '../helpers/own-runtime.ts';
import { receiverPool } from '../helpers/webhook-receiver.ts';

const receivers = receiverPool();
const ports = ownRuntimePorts(395);
const baseUrl = `http://127.0.0.1:${ports.PORT}`;
const runtime = ownRuntime(ports);

const CUSTOMER = {
  name: 'Maria Silvana Zanetti',
  document: '529.982.247-25',
  email: 'maria.zanetti@example.org',
  phone: '+5511987654321',
};
const CPF = '52998224725';
const MED_PAYER = { name: 'Joao Pereira Quintal', document: '11144477735' };
const CONTACT_EMAIL = 'financeiro.loja@example.org';

/** What no line of the runtime's output, and no metric, may contain. */
const PERSONAL_DATA = [
  CUSTOMER.name,
  CUSTOMER.document,
  CPF,
  CUSTOMER.email,
  CUSTOMER.phone,
  MED_PAYER.name,
  MED_PAYER.document,
  '111.444.777-35',
  CONTACT_EMAIL,
];

/** SES v2 answering every SendEmail as Amazon SES does for unverified recipients. */
const sesRequests: string[] = [];
const rejectingSes = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => {
    body += chunk.toString();
  });
  req.on('end', () => {
    sesRequests.push(body);
    const to: string[] = JSON.parse(body).Destination?.ToAddresses ?? [];
    res.writeHead(400, { 'Content-Type': 'application/json', 'x-amzn-ErrorType': 'MessageRejected' });
    res.end(
      JSON.stringify({
        message: `Email address is not verified. The following identities failed the check in region US-EAST-1: ${to.join(', ')}`,
      }),
    );
  });
});
afterAll(() => new Promise((resolve) => rejectingSes.close(resolve)));

/** The runtime's JSON log records so far. */
const records = () =>
  runtime
    .output()
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });

describe('personal data in the logs', () => {
  it('a charge, its refund, webhooks and MED case log ids only; an upstream error naming an address is masked', async () => {
    await new Promise<void>((resolve) => rejectingSes.listen(0, '127.0.0.1', resolve));
    const dataDir = mkdtempSync(join(tmpdir(), 'pix-personal-data-'));
    await runtime.start(dataDir, {
      SES_ENDPOINT_URL: `http://127.0.0.1:${(rejectingSes.address() as AddressInfo).port}`,
    });
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'));
    await adminWithEnv(
      // This runtime's DynamoDB, not the suite's (whose endpoint the test process has).
      { TABLE_NAME: '', AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${ports.DYNAMODB_PORT}` },
      'set-contact-email',
      '--account',
      demo.account_id,
      '--email',
      CONTACT_EMAIL,
    );
    const call = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
      api(path, {
        baseUrl,
        apikey: demo.test_api_key,
        headers,
        ...(body !== undefined && { method: 'POST', body }),
      });

    const { receiver, url } = await receivers.start();
    const endpoint = await call('/v1/webhooks/endpoints', {
      url,
      events: ['charge.created', 'charge.paid', 'payment.refunded', 'med_case.created', 'med.resolved'],
    });
    expect(endpoint.status).toBe(201);

    const charge = await call(
      '/v1/charges',
      {
        amount: 5_000,
        payment_method: 'pix',
        description: `Pedido de ${CUSTOMER.name}`,
        customer: CUSTOMER,
        expected_payer_tax_id: CPF,
      },
      { 'idempotency-key': 'personal-data-1' },
    );
    expect(charge.status).toBe(201);
    const rawId = String(charge.body.id).slice(3);
    expect((await fetch(`${baseUrl}/checkout/${rawId}`)).status).toBe(200);
    expect(
      (
        await call(`/v1/sandbox/charges/${charge.body.id}/pay`, {
          payer_document: CPF,
          payer_name: CUSTOMER.name,
        })
      ).body.outcome,
    ).toBe('paid');
    expect((await call(`/v1/payments/${rawId}/receipt`)).status).toBe(200);
    const refund = await call(`/v1/payments/${rawId}/refund`, {
      idempotencyKey: 'personal-data-refund-1',
      amount: 100,
      reason: `Pedido de ${CUSTOMER.email}`,
    });
    expect(refund.status).toBe(201);
    // A case opens only once no refund of the charge is in flight.
    expect((await call(`/v1/sandbox/refunds/${refund.body.id}/confirm`, {})).body.status).toBe('REFUNDED');

    const opened = await call(`/v1/sandbox/charges/${charge.body.id}/med`, {
      reason: `Golpe relatado por ${MED_PAYER.name}, ${CUSTOMER.phone}`,
      payer_name: MED_PAYER.name,
      payer_document: MED_PAYER.document,
    });
    expect(opened.status).toBe(201);
    const caseId = opened.body.id;
    expect(
      (
        await call(`/v1/med/cases/${caseId}/appeal`, {
          reason: `Entregue a ${CUSTOMER.name}, CPF ${CUSTOMER.document}`,
        })
      ).status,
    ).toBe(200);
    const file = Buffer.from('%PDF-1.4 nota fiscal');
    const grant = await call(`/v1/med/cases/${caseId}/evidence`, {
      file_name: `nota-fiscal-${CPF}.pdf`,
      file_size: file.length,
      mime_type: 'application/pdf',
    });
    expect(grant.status).toBe(201);
    expect(
      (await fetch(grant.body.upload_url, { method: 'PUT', headers: grant.body.upload_headers, body: file }))
        .ok,
    ).toBe(true);
    expect((await call(`/v1/med/cases/${caseId}/evidence/${grant.body.id}/complete`, {})).status).toBe(200);
    const decided = await call(
      `/v1/sandbox/med/cases/${caseId}/decide`,
      { outcome: 'merchant_won' },
      { 'x-request-id': 'personal-data-last-request' },
    );
    expect(decided.body).toMatchObject({ status: 'closed' });

    // Positive controls, each written after what it follows: the last webhook delivered, the
    // two MED notices refused by SES and given up, and the last request's own log record.
    await receiver.waitFor(1, 30_000, (r) => r.body.includes('"med.resolved"'));
    const givenUp = await eventually(
      () => {
        const lines = runtime.logged('med notice e-mail not sent; given up');
        expect(lines).toHaveLength(2);
        return lines;
      },
      { timeoutMs: 30_000, message: 'both MED notices given up' },
    );
    expect(sesRequests.every((body) => body.includes(CONTACT_EMAIL))).toBe(true);
    await eventually(
      () => expect(records().some((r) => r.requestId === 'personal-data-last-request')).toBe(true),
      { timeoutMs: 5_000, message: 'the last request logged' },
    );

    // SES's reason stays readable; the address it named does not.
    for (const line of givenUp) {
      expect(line.errorName).toBe('MessageRejected');
      expect(line.errorMessage).toBe(
        'Email address is not verified. The following identities failed the check in region US-EAST-1: ***@example.org',
      );
    }
    const output = runtime.output();
    const metrics = readFileSync(join(dataDir, 'metrics.jsonl'), 'utf8');
    for (const datum of [...PERSONAL_DATA, endpoint.body.secret]) {
      expect(output).not.toContain(datum);
      expect(metrics).not.toContain(datum);
    }
  }, 150_000);
});
