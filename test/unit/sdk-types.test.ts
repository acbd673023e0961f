/**
 * The SDK is typed from the contract, never by hand: its generated module must be exactly what
 * openapi-typescript makes of the committed OpenAPI document (`npm run sdk:types` after a change).
 */

import { readFile } from 'node:fs/promises';
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
