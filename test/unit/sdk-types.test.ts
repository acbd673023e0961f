/**
 * The SDK is typed from the contract, never by hand: its generated module must be exactly what
 * openapi-typescript makes of the committed OpenAPI document (`npm run sdk:types` after a change).
 */

import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import openapiTS, { type OpenAPI3 } from 'openapi-typescript';
import { expect, expectTypeOf, it } from 'vitest';
import type * as Sdk from '../../sdk/src/types.ts';

it('sdk/src/openapi.ts is generated from the current docs/openapi.json', async () => {
  const document = JSON.parse(await readFile('docs/openapi.json', 'utf8')) as OpenAPI3;
  const generated = await openapiTS(document);
  const committed = await readFile('sdk/src/openapi.ts', 'utf8');
  expect(generated === committed, 'sdk/src/openapi.ts is stale: run `npm run sdk:types`').toBe(true);
});

/** The names of `T` whose type is `never`. */
type NeverIn<T> = { [K in keyof T]: [T[K]] extends [never] ? K : never }[keyof T];

// Checked by `tsc` (npm run typecheck), not at run time: a name mapped onto an operation, status or
// field the document no longer has resolves to `never`, which every use would silently accept.
it('every request and response type of the SDK resolves to something (none is never)', () => {
  expectTypeOf<
    NeverIn<{
      Charge: Sdk.Charge;
      ChargeStatus: Sdk.ChargeStatus;
      CreateChargeParams: Sdk.CreateChargeParams;
      CreatePixChargeParams: Sdk.CreatePixChargeParams;
      ListChargesParams: Sdk.ListChargesParams;
      ChargePage: Sdk.ChargePage;
      PaymentCreated: Sdk.PaymentCreated;
      Payment: Sdk.Payment;
      TransactionStatus: Sdk.TransactionStatus;
      CreatePaymentParams: Sdk.CreatePaymentParams;
      ListPaymentsParams: Sdk.ListPaymentsParams;
      PaymentPage: Sdk.PaymentPage;
      PaymentStats: Sdk.PaymentStats;
      PaymentMetrics: Sdk.PaymentMetrics;
      PaymentStatsParams: Sdk.PaymentStatsParams;
      PaymentMetricsParams: Sdk.PaymentMetricsParams;
      ProviderStatus: Sdk.ProviderStatus;
      ResendWebhookResult: Sdk.ResendWebhookResult;
      PaymentReceipt: Sdk.PaymentReceipt;
      Refund: Sdk.Refund;
      RefundStatus: Sdk.RefundStatus;
      CreateRefundParams: Sdk.CreateRefundParams;
      RefundList: Sdk.RefundList;
      WalletBalance: Sdk.WalletBalance;
      CurrencyBalance: Sdk.CurrencyBalance;
      WalletListItem: Sdk.WalletListItem;
      WebhookEndpoint: Sdk.WebhookEndpoint;
      WebhookEndpointWithSecret: Sdk.WebhookEndpointWithSecret;
      WebhookEndpointList: Sdk.WebhookEndpointList;
      CreateWebhookEndpointParams: Sdk.CreateWebhookEndpointParams;
      UpdateWebhookEndpointParams: Sdk.UpdateWebhookEndpointParams;
      RotatedSecret: Sdk.RotatedSecret;
      OverrideSecret: Sdk.OverrideSecret;
      EventCatalogEntry: Sdk.EventCatalogEntry;
      WebhookDelivery: Sdk.WebhookDelivery;
      DeliveryStatus: Sdk.DeliveryStatus;
      ListDeliveriesParams: Sdk.ListDeliveriesParams;
      DeliveryPage: Sdk.DeliveryPage;
      DeliveryStats: Sdk.DeliveryStats;
      MedCase: Sdk.MedCase;
      MedCaseStatus: Sdk.MedCaseStatus;
      ListMedCasesParams: Sdk.ListMedCasesParams;
      MedCasePage: Sdk.MedCasePage;
      EvidenceDeclaration: Sdk.EvidenceDeclaration;
      EvidenceMimeType: Sdk.EvidenceMimeType;
      EvidenceUploadGrant: Sdk.EvidenceUploadGrant;
      MedEvidence: Sdk.MedEvidence;
      MedEvidenceList: Sdk.MedEvidenceList;
      LoginParams: Sdk.LoginParams;
      LoginResult: Sdk.LoginResult;
      IssuedApiKey: Sdk.IssuedApiKey;
      CreateApiKeyParams: Sdk.CreateApiKeyParams;
      RotateApiKeyParams: Sdk.RotateApiKeyParams;
      ApiKeyList: Sdk.ApiKeyList;
      AuditLogParams: Sdk.AuditLogParams;
      AuditLog: Sdk.AuditLog;
      RevokedApiKey: Sdk.RevokedApiKey;
      SandboxPayParams: Sdk.SandboxPayParams;
      SandboxPayment: Sdk.SandboxPayment;
      SandboxAcquirerParams: Sdk.SandboxAcquirerParams;
      SandboxAcquirerState: Sdk.SandboxAcquirerState;
      SandboxMedParams: Sdk.SandboxMedParams;
      SandboxMedDecision: Sdk.SandboxMedDecision;
    }>
  >().toBeNever();
});

/** The first ```ts block of a Markdown text (from `from`), with its SDK import pointed at the source. */
const tsSnippet = (markdown: string, from: string, specifier: string) =>
  /```ts\n([\s\S]*?)```/
    .exec(markdown.slice(markdown.indexOf(from)))?.[1]
    ?.replace(specifier, "'../../sdk/src/index.ts'");

// A merchant's project may compile the SDK with DOM lib types (the default without "lib") and
// exactOptionalPropertyTypes, passing `process.env.PIX_API_KEY` as the key: the SDK's own
// tsconfig (Node types only, no exactOptionalPropertyTypes) would not notice what breaks there.
it("the SDK and the READMEs' snippets type-check under DOM lib types and exactOptionalPropertyTypes", async () => {
  const read = (path: string) => readFile(path, 'utf8');
  const sdkSnippet = await read('test/sdk-snippets/sdk-readme.ts');
  const readmeSnippet = await read('test/sdk-snippets/readme.ts');
  const fromSdkReadme = tsSnippet(await read('sdk/README.md'), '', "'@pix-service/sdk'");
  const fromReadme = tsSnippet(await read('README.md'), '## TypeScript SDK', "'./sdk/src/index.ts'");
  expect(fromSdkReadme && sdkSnippet.endsWith(fromSdkReadme), 'test/sdk-snippets/sdk-readme.ts').toBe(true);
  expect(fromReadme && readmeSnippet.endsWith(fromReadme), 'test/sdk-snippets/readme.ts').toBe(true);

  const tsc = await promisify(execFile)('node_modules/.bin/tsc', ['-p', 'sdk/tsconfig.dom.json']).catch(
    // A non-zero exit (or no tsc at all) fails the test even when it printed nothing.
    (error: { stdout?: string; stderr?: string; message: string }) => ({
      stdout: error.stdout ?? '',
      stderr: `${error.stderr ?? ''}${error.message}`,
    }),
  );
  expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
}, 120_000);
