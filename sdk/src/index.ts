/**
 * `@pix-service/sdk`: a typed client of the Pix payment service.
 *
 * ```ts
 * const pix = new PixClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: process.env.PIX_API_KEY });
 * const charge = await pix.charges.create({ amount: 1050, description: 'Pedido 42' });
 * ```
 */

import { type ClientOptions, HttpClient } from './http.ts';
import { ApiKeys } from './resources/api-keys.ts';
import { Auth } from './resources/auth.ts';
import { Charges } from './resources/charges.ts';
import { MedCases } from './resources/med-cases.ts';
import { Payments } from './resources/payments.ts';
import { Sandbox } from './resources/sandbox.ts';
import { Wallets } from './resources/wallets.ts';
import { WebhookDeliveries } from './resources/webhook-deliveries.ts';
import { WebhookEndpoints } from './resources/webhook-endpoints.ts';
import { webhooks } from './webhooks.ts';

export class PixClient {
  readonly charges: Charges;
  readonly payments: Payments;
  readonly wallets: Wallets;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly webhookDeliveries: WebhookDeliveries;
  readonly medCases: MedCases;
  readonly apiKeys: ApiKeys;
  readonly auth: Auth;
  readonly sandbox: Sandbox;
  /** Signature verification needs no credentials; also exported on its own. */
  readonly webhooks = webhooks;

  constructor(options: ClientOptions) {
    const http = new HttpClient(options);
    this.charges = new Charges(http);
    this.payments = new Payments(http);
    this.wallets = new Wallets(http);
    this.webhookEndpoints = new WebhookEndpoints(http);
    this.webhookDeliveries = new WebhookDeliveries(http);
    this.medCases = new MedCases(http);
    this.apiKeys = new ApiKeys(http);
    this.auth = new Auth(http);
    this.sandbox = new Sandbox(http);
  }
}

export * from './errors.ts';
export {
  type ClientOptions,
  type RequestOptions,
  type ResponseInfo,
  responseOf,
  retryDelayMs,
} from './http.ts';
export type { EvidenceFile } from './resources/med-cases.ts';
export type * from './types.ts';
export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifyOptions,
  verify,
  type WebhookHeaders,
  WebhookSignatureError,
  type WebhookSignatureFailure,
  webhooks,
} from './webhooks.ts';
